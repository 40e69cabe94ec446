// E007: a feature that needs more than the hardened baseline must say why, in its [security.exceptions.<name>].
import type { Rule } from './rule.js';
import { featureNeeds } from './helpers/features.js';
import { finding } from './helpers/findings.js';

/** Every enabled feature needs its matching security exception. */
export const featureNeedsException: Rule = {
  id: 'E007',
  alias: 'feature-needs-exception',
  severity: 'error',
  summary: 'an enabled feature needs its [security.exceptions.<name>] with a reason',
  check(m) {
    return featureNeeds(m)
      .filter((need) => need.enabled && !m.security.exceptions[need.exception])
      .map((need) =>
        finding(
          need.segments,
          `${need.setting} needs [security.exceptions.${need.exception}], which is not declared`,
          `add [security.exceptions.${need.exception}] with reason = "<why this box needs it>" (and the tmpfs, devices or volumes it adds), or turn the feature off`,
        ),
      );
  },
};

// E036: a setting asks for a part this build does not ship; its programme could never start, so the box would fail at boot.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { requestedParts } from './helpers/features.js';

/** Every feature or box programme the manifest turns on is one this build provides (schema/box-facts.json `available`). */
export const unavailableInThisBuild: Rule = {
  id: 'E036',
  alias: 'unavailable-in-this-build',
  severity: 'error',
  summary: 'a feature or box programme this build does not provide cannot be turned on',
  check(m, context) {
    return requestedParts(m, context)
      .filter((p) => !p.available)
      .map((p) =>
        finding(
          p.segments,
          `${p.setting} asks for something this build does not provide: ${p.reason ?? 'it is not part of this build'}`,
          p.instead ? `${p.off}, and ${p.instead}` : p.off,
        ),
      );
  },
};

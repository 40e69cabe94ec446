// E042: agents without the sandbox can read the box's secrets and reach any host, so turning it off needs an explicit review.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `sandbox.enabled = false` needs `security.audit_acknowledged = true`. */
export const unconfinedAgentsNeedAudit: Rule = {
  id: 'E042',
  alias: 'unconfined-agents-need-audit',
  severity: 'error',
  summary: 'sandbox.enabled = false needs security.audit_acknowledged = true',
  check(m) {
    if (m.sandbox.enabled || m.security.audit_acknowledged) return [];
    return [
      finding(
        ['sandbox', 'enabled'],
        "sandbox.enabled = false runs every agent unconfined, with the API's own uid, but security.audit_acknowledged is false",
        'keep sandbox.enabled = true (agents confined by Landlock, seccomp and rlimits); or review docs/user/sandbox.md and set [security] audit_acknowledged = true',
      ),
    ];
  },
};

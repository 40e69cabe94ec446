// W016: an acknowledged sandbox.enabled = false still deserves a warning on every validation: agents can read the box's secrets.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** Agents run unconfined (`sandbox.enabled = false`, acknowledged; E042 refuses it otherwise). */
export const agentsUnconfined: Rule = {
  id: 'W016',
  alias: 'agents-unconfined',
  severity: 'warning',
  summary: 'sandbox.enabled = false: agents run unconfined',
  check(m) {
    // Without the acknowledgement E042 already refuses the manifest.
    if (m.sandbox.enabled || !m.security.audit_acknowledged) return [];
    return [
      finding(
        ['sandbox', 'enabled'],
        "sandbox.enabled = false: agents run unconfined with the API's own uid; they can read the API key, other agents' files and reach any host",
        'set sandbox.enabled = true on a kernel with Landlock ABI 6 or later (docs/user/sandbox.md)',
      ),
    ];
  },
};

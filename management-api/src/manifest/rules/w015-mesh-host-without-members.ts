// W015: a mesh host with no allowed member keys refuses every registration; it runs, but no box can join it.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.mode = "host"` lists at least one key in `mesh.allowed_pubkeys`. */
export const meshHostWithoutMembers: Rule = {
  id: 'W015',
  alias: 'mesh-host-without-members',
  severity: 'warning',
  summary: 'mesh.mode = "host" with an empty mesh.allowed_pubkeys accepts no member',
  check(m) {
    if (m.mesh.mode !== 'host' || m.mesh.allowed_pubkeys.length > 0) return [];
    return [
      finding(
        ['mesh', 'allowed_pubkeys'],
        'mesh.mode = "host" but mesh.allowed_pubkeys is empty: every registration is refused (401)',
        'add the npub of each member box (`npx agentbox identity` on that box) to allowed_pubkeys',
      ),
    ];
  },
};

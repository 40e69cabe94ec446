// E010: the embedded relay is part of the Nostr integration; with it off there is no identity or policy to serve it.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `sovereign_mesh.relay.enabled` needs `sovereign_mesh.enabled`. */
export const relayNeedsSovereignMesh: Rule = {
  id: 'E010',
  alias: 'relay-needs-sovereign-mesh',
  severity: 'error',
  summary: 'the embedded relay needs sovereign_mesh.enabled = true',
  check(m) {
    const sm = m.sovereign_mesh;
    if (!sm.relay.enabled || sm.enabled) return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'enabled'],
        'sovereign_mesh.relay.enabled = true but sovereign_mesh.enabled is false',
        'set [sovereign_mesh] enabled = true, or turn the relay off with [sovereign_mesh.relay] enabled = false',
      ),
    ];
  },
};

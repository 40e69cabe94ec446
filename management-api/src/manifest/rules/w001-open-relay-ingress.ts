// W001: an open relay stores anything anyone sends; legitimate for a public relay, but usually a mistake.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** An enabled relay with `ingress_policy = "open"` (without publishing, which E012 makes an error). */
export const openRelayIngress: Rule = {
  id: 'W001',
  alias: 'open-relay-ingress',
  severity: 'warning',
  summary: 'the embedded relay accepts events from anyone (ingress_policy = "open")',
  check(m) {
    const sm = m.sovereign_mesh;
    if (!sm.relay.enabled || sm.relay.ingress_policy !== 'open' || sm.publish_agent_events) return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'ingress_policy'],
        'sovereign_mesh.relay.ingress_policy = "open" accepts and stores events from anyone',
        'prefer ingress_policy = "allowlist" with allowed_pubkeys = ["<64-hex pubkey>", …], or "signed-only"',
      ),
    ];
  },
};

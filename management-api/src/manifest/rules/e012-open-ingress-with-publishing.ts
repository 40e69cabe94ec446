// E012: with open ingress anyone can write to the relay the box publishes its signed agent events through.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** An enabled relay with `ingress_policy = "open"` must not be combined with `publish_agent_events`. */
export const openIngressWithPublishing: Rule = {
  id: 'E012',
  alias: 'open-ingress-with-publishing',
  severity: 'error',
  summary: 'an open relay must not be combined with publish_agent_events = true',
  check(m) {
    const sm = m.sovereign_mesh;
    if (!sm.relay.enabled || sm.relay.ingress_policy !== 'open' || !sm.publish_agent_events) return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'ingress_policy'],
        'sovereign_mesh.relay.ingress_policy = "open" accepts anyone\'s events while sovereign_mesh.publish_agent_events = true publishes the box\'s own',
        'set ingress_policy = "allowlist" (with allowed_pubkeys) or "signed-only", or stop publishing with publish_agent_events = false',
      ),
    ];
  },
};

// E011: a relay listening on every interface is reachable from outside; that must be a deliberate choice.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { isWildcardAddress } from '../../grammar/url.js';

/** A relay bound to 0.0.0.0 or :: needs `expose = true`. */
export const wildcardRelayNeedsExpose: Rule = {
  id: 'E011',
  alias: 'wildcard-relay-needs-expose',
  severity: 'error',
  summary: 'a relay bound to 0.0.0.0 or :: needs sovereign_mesh.relay.expose = true',
  check(m) {
    const relay = m.sovereign_mesh.relay;
    if (!relay.enabled || relay.expose || !isWildcardAddress(relay.bind)) return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'bind'],
        `sovereign_mesh.relay.bind = "${relay.bind}" listens on every interface but sovereign_mesh.relay.expose is false`,
        'bind the relay to loopback with bind = "127.0.0.1", or make the exposure explicit with expose = true',
      ),
    ];
  },
};

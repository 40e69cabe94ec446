// W010: a relay listening on loopback cannot be reached through a published port, so expose = true has no effect.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { isLoopbackHost } from '../../grammar/url.js';

/** An exposed relay listens on an address other than loopback. */
export const exposedRelayOnLoopback: Rule = {
  id: 'W010',
  alias: 'exposed-relay-on-loopback',
  severity: 'warning',
  summary: 'sovereign_mesh.relay.expose = true has no effect while the relay binds loopback',
  check(m) {
    const relay = m.sovereign_mesh.relay;
    if (!relay.enabled || !relay.expose || !isLoopbackHost(relay.bind)) return [];
    return [
      finding(
        ['sovereign_mesh', 'relay', 'expose'],
        `sovereign_mesh.relay.expose = true but bind = "${relay.bind}" accepts connections from loopback only`,
        'set bind = "0.0.0.0" (or "::") to serve the exposed port, or expose = false to keep the relay local',
      ),
    ];
  },
};

// E025: publishing agent events needs somewhere to publish them: listed relays or the embedded one.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `publish_agent_events` needs `relays` or an enabled embedded relay. */
export const publishingNeedsRelay: Rule = {
  id: 'E025',
  alias: 'publishing-needs-relay',
  severity: 'error',
  summary: 'publish_agent_events needs sovereign_mesh.relays or the embedded relay',
  check(m) {
    const sm = m.sovereign_mesh;
    if (!sm.publish_agent_events || sm.relays.length > 0 || sm.relay.enabled) return [];
    return [
      finding(
        ['sovereign_mesh', 'publish_agent_events'],
        'sovereign_mesh.publish_agent_events = true but sovereign_mesh.relays is empty and the embedded relay is off',
        'add relays = ["wss://relay.example.com"], or enable [sovereign_mesh.relay] enabled = true, or set publish_agent_events = false',
      ),
    ];
  },
};

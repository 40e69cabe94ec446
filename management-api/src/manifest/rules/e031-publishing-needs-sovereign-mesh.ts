// E031: agent events are signed with the box's Nostr identity, which exists only when the sovereign mesh is on.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `publish_agent_events` needs `sovereign_mesh.enabled`. */
export const publishingNeedsSovereignMesh: Rule = {
  id: 'E031',
  alias: 'publishing-needs-sovereign-mesh',
  severity: 'error',
  summary: 'publish_agent_events needs sovereign_mesh.enabled = true',
  check(m) {
    const sm = m.sovereign_mesh;
    if (!sm.publish_agent_events || sm.enabled) return [];
    return [
      finding(
        ['sovereign_mesh', 'publish_agent_events'],
        'sovereign_mesh.publish_agent_events = true but sovereign_mesh.enabled is false',
        'set [sovereign_mesh] enabled = true, or publish_agent_events = false',
      ),
    ];
  },
};

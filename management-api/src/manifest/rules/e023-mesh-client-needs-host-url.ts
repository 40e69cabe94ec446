// E023: a mesh client registers with its host; without the host's URL it has nowhere to register.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.mode = "client"` needs `mesh.host_url`. */
export const meshClientNeedsHostUrl: Rule = {
  id: 'E023',
  alias: 'mesh-client-needs-host-url',
  severity: 'error',
  summary: 'mesh.mode = "client" needs mesh.host_url',
  check(m) {
    if (m.mesh.mode !== 'client' || m.mesh.host_url !== '') return [];
    return [
      finding(
        ['mesh', 'host_url'],
        'mesh.mode = "client" but mesh.host_url is empty',
        'set [mesh] host_url = "https://<mesh-host>:9090", the API of the mesh host',
      ),
    ];
  },
};

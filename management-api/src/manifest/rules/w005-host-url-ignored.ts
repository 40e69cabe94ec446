// W005: only a mesh client contacts a mesh host; a host_url on a standalone box or a host suggests a forgotten mode.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.host_url` is only set when it is used (mode client). */
export const hostUrlIgnored: Rule = {
  id: 'W005',
  alias: 'host-url-ignored',
  severity: 'warning',
  summary: 'mesh.host_url is ignored unless mesh.mode = "client"',
  check(m) {
    if (m.mesh.mode === 'client' || m.mesh.host_url === '') return [];
    return [
      finding(
        ['mesh', 'host_url'],
        `mesh.host_url is set but mesh.mode = "${m.mesh.mode}" ignores it (only a client registers with a host)`,
        'set mesh.mode = "client" to join that host, or delete host_url',
      ),
    ];
  },
};

// W005: a standalone box never contacts a mesh host, so a host_url there suggests a forgotten mode.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.host_url` is only set when it is used. */
export const hostUrlIgnored: Rule = {
  id: 'W005',
  alias: 'host-url-ignored',
  severity: 'warning',
  summary: 'mesh.host_url is ignored when mesh.mode = "standalone"',
  check(m) {
    if (m.mesh.mode !== 'standalone' || m.mesh.host_url === '') return [];
    return [
      finding(
        ['mesh', 'host_url'],
        'mesh.host_url is set but mesh.mode = "standalone" ignores it',
        'set mesh.mode = "client" to join that host, or delete host_url',
      ),
    ];
  },
};

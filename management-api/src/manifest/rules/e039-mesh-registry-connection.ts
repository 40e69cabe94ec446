// E039: a Postgres registry needs its connection string named exactly once, or the host cannot open it (or it is unclear which source wins).
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `mesh.registry = "postgres"` names its connection string by `registry_connection_env` or `registry_connection_file`, one of them. */
export const meshRegistryConnection: Rule = {
  id: 'E039',
  alias: 'mesh-registry-connection',
  severity: 'error',
  summary: 'mesh.registry = "postgres" needs exactly one of mesh.registry_connection_env and mesh.registry_connection_file',
  check(m) {
    const { mode, registry, registry_connection_env: env, registry_connection_file: file } = m.mesh;
    if (mode !== 'host' || registry !== 'postgres') return [];
    if (env === '' && file === '') {
      return [
        finding(
          ['mesh', 'registry_connection_env'],
          'mesh.registry = "postgres" but neither mesh.registry_connection_env nor mesh.registry_connection_file is set',
          'add registry_connection_env = "AGENTBOX_MESH_PG_URL" (the variable holding the connection string) or registry_connection_file = "/run/secrets/mesh-pg-url"',
        ),
      ];
    }
    if (env !== '' && file !== '') {
      return [
        finding(
          ['mesh', 'registry_connection_file'],
          `mesh sets both registry_connection_env = "${env}" and registry_connection_file = "${file}"`,
          `keep one: delete registry_connection_file to read the variable ${env}, or delete registry_connection_env to read the file`,
        ),
      ];
    }
    return [];
  },
};

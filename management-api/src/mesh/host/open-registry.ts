// Opens the registry the manifest chooses: a SQLite file on the state volume, or Postgres with its connection string read as a secret.
import path from 'node:path';
import type { Logger } from 'pino';
import type { NormalizedManifest } from '../../manifest/load-manifest.js';
import type { RuntimePaths } from '../../runtime-paths.js';
import { readSecret } from '../../secrets/read-secret.js';
import type { MeshRegistry } from './registry.js';
import { SqliteRegistry } from './sqlite-registry.js';

/** Where the SQLite registry lives, under the state volume. */
export function sqliteRegistryFile(paths: RuntimePaths): string {
  return path.join(paths.stateDir, 'mesh', 'registry.sqlite');
}

/**
 * The registry of `mesh.registry`, opened (tables created). For postgres the connection string
 * comes from `mesh.registry_connection_file` or the variable `mesh.registry_connection_env` names
 * (the file first, as for every secret); errors name the key, never the value.
 */
export async function openRegistry(options: {
  manifest: NormalizedManifest;
  paths: RuntimePaths;
  env: Readonly<Record<string, string | undefined>>;
  clock: () => Date;
  logger: Logger;
}): Promise<MeshRegistry> {
  const mesh = options.manifest.mesh;
  let registry: MeshRegistry;
  if (mesh.registry === 'postgres') {
    const connection = await readSecret({
      env: { key: 'mesh.registry_connection_env', name: mesh.registry_connection_env, values: options.env },
      file: { key: 'mesh.registry_connection_file', path: mesh.registry_connection_file },
      shape: 'line',
      openEvent: 'SecretFileTooOpen',
      logger: options.logger,
    });
    if (connection === undefined) throw new Error('mesh.registry = "postgres" needs mesh.registry_connection_env or mesh.registry_connection_file (rule E039)');
    // Loaded only here: the Postgres driver is most of a second registry's start-up cost, and most hosts use SQLite.
    const { PostgresRegistry } = await import('./postgres-registry.js');
    registry = new PostgresRegistry(connection);
  } else {
    registry = new SqliteRegistry(sqliteRegistryFile(options.paths), options.clock);
  }
  try {
    await registry.open();
  } catch (err) {
    await registry.close().catch(() => {});
    throw err;
  }
  return registry;
}

// The SQLite member registry of a host that ran before members reported their box name: opening it adds the column, old rows read as unnamed.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import t from 'tap';
import { SqliteRegistry } from '../../management-api/src/mesh/host/sqlite-registry.js';

// mesh_members as it was created before the `name` column.
const OLD_SCHEMA = `CREATE TABLE mesh_members (pubkey TEXT PRIMARY KEY, session_id TEXT NOT NULL UNIQUE, state TEXT NOT NULL, api_endpoint TEXT NOT NULL, image_hash TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL, adapters TEXT NOT NULL, contract_versions TEXT NOT NULL, health TEXT, capacity TEXT NOT NULL, registered_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, evicted_at INTEGER)`;

t.test('an older registry file gains the name column; old members are unnamed, new ones named', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentbox-registry-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'mesh.sqlite');
  const old = new BetterSqlite3(file);
  old.exec(OLD_SCHEMA);
  old
    .prepare(
      `INSERT INTO mesh_members VALUES ('${'a'.repeat(64)}', 's-old', 'registered', 'http://127.0.0.1:1', 'sha256:x', '${'0'.repeat(64)}', '{}', '{}', NULL, '{"agents_running":0,"free_memory_bytes":1}', 1, 1, 9e15, NULL)`,
    )
    .run();
  old.close();

  const registry = new SqliteRegistry(file, () => new Date());
  await registry.open();
  t.teardown(() => registry.close());
  const member = {
    pubkey: 'b'.repeat(64),
    imageHash: 'sha256:x',
    manifestSha256: '0'.repeat(64),
    adapters: {},
    contractVersions: {},
    apiEndpoint: 'http://127.0.0.1:2',
    capacity: { agents_running: 0, free_memory_bytes: 1 },
  };
  await registry.register({ ...member, name: 'new-box' }, 's-new', 60_000);
  t.match(await registry.members(), [
    { pubkey: 'a'.repeat(64), name: null },
    { pubkey: 'b'.repeat(64), name: 'new-box' },
  ]);
  await registry.register(member, 's-again', 60_000);
  t.match(
    (await registry.members()).find((m) => m.pubkey === member.pubkey),
    { name: null },
    'registering again without a name forgets the old one',
  );
});

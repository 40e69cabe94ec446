// Host replicas sharing one real Postgres registry: sessions, eviction, spent tokens and replicas agree across two
// registries, then two host processes and a client process that fails over from one to the other.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { bytesToHex } from 'nostr-tools/utils';
import { PostgresRegistry } from '../../management-api/src/mesh/host/postgres-registry.js';
import { startPostgres } from '../helpers/postgres.js';
import { ALL_OFF, makeRoot, waitFor } from './support/harness.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const serverJs = `${repo}dist/box/management-api.js`;
const member = (pubkey: string) => ({
  pubkey,
  imageHash: 'sha256:x',
  manifestSha256: 'a'.repeat(64),
  adapters: { beads: 'off' },
  contractVersions: { beads: '1' },
  apiEndpoint: 'http://127.0.0.1:1',
  capacity: { agents_running: 0, free_memory_bytes: 1 },
});
const beat = { health: { ready: true, status: 'ok' }, capacity: { agents_running: 1, free_memory_bytes: 2 } };

t.test('two registries on one database', async (t) => {
  const cluster = await startPostgres();
  t.teardown(() => cluster.stop());
  const a = new PostgresRegistry(cluster.url);
  const b = new PostgresRegistry(cluster.url);
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  // Both create the tables at once (the advisory lock serialises them).
  await Promise.all([a.open(), b.open()]);
  const pk = getPublicKey(generateSecretKey());

  await a.register({ ...member(pk), name: 'box-a' }, '11111111-1111-4111-8111-111111111111', 60_000);
  t.ok(await b.heartbeat('11111111-1111-4111-8111-111111111111', pk, beat, 60_000), 'a session registered through one replica heartbeats through the other');
  t.notOk(await b.heartbeat('11111111-1111-4111-8111-111111111111', getPublicKey(generateSecretKey()), beat, 60_000), 'not under another key');
  t.match(await a.members(), [{ pubkey: pk, state: 'registered', health: { ready: true }, capacity: { agents_running: 1 }, name: 'box-a' }]);

  // A short deadline (the seam: the deadline is a parameter, the clock the database's).
  await a.register(member(pk), '22222222-2222-4222-8222-222222222222', 300);
  t.notOk(await b.heartbeat('11111111-1111-4111-8111-111111111111', pk, beat, 60_000), 'registering again ends the older session');
  await new Promise((r) => setTimeout(r, 400));
  const [ea, eb] = await Promise.all([a.evictExpired(86_400_000), b.evictExpired(86_400_000)]);
  t.equal(ea.length + eb.length, 1, 'two replicas sweeping at once evict the member once');
  t.notOk(await a.heartbeat('22222222-2222-4222-8222-222222222222', pk, beat, 60_000), 'an evicted session gets no heartbeat');
  t.match(await b.members(), [{ pubkey: pk, state: 'evicted', evictedAt: String }]);
  t.same(await b.evictExpired(0), [], 'nothing left to evict');
  t.match(await b.members(), [], 'evicted members are forgotten after forgetMs');

  t.equal(await a.admit('sig-1', 2_000_000_000, 1_900_000_000), 'fresh');
  t.equal(await b.admit('sig-1', 2_000_000_000, 1_900_000_000), 'replayed', 'a token spent at one replica is refused at the other');
  t.equal(await b.admit('sig-1', 2_000_000_100, 2_000_000_050), 'fresh', 'an expired entry does not block its signature forever');

  await a.announceReplica('http://127.0.0.1:1', 60_000);
  await b.announceReplica('http://127.0.0.1:2', 60_000);
  t.same(await a.replicas(), ['http://127.0.0.1:1', 'http://127.0.0.1:2']);
});

t.test('the registry reports an unreachable database as unavailable, naming no password', async (t) => {
  const r = new PostgresRegistry('postgres://u:hunter2-secret@127.0.0.1:1/db');
  t.teardown(() => r.close());
  await t.rejects(r.open(), { name: 'RegistryUnavailableError', message: /cannot connect/ });
  await r.open().catch((err: Error) => t.notMatch(err.message, /hunter2/));
});

/** A box process (the compiled server) under its own root. */
async function box(t: { teardown(fn: () => unknown): void }, toml: string, env: Record<string, string> = {}, secret?: Uint8Array) {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  if (secret) {
    await mkdir(root.paths.secretsDir, { recursive: true, mode: 0o700 });
    await writeFile(root.paths.identityKeyFile, `${bytesToHex(secret)}\n`, { mode: 0o600 });
  }
  await writeFile(`${root.dir}/agentbox.toml`, toml);
  const child: ChildProcess = spawn(process.execPath, [serverJs, '--manifest', `${root.dir}/agentbox.toml`], {
    env: { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.teardown(() => void child.kill('SIGKILL'));
  const url = await waitFor('ApiListening', () => /"event":"ApiListening".*?"apiUrl":"([^"]+)"/.exec(out)?.[1], 20_000);
  const key = (await readFile(root.paths.apiKeyFile, 'utf8')).trim();
  const get = async (path: string) => (await (await fetch(url + path, { headers: { authorization: `Bearer ${key}` } })).json()) as Record<string, unknown>;
  return { child, url, get, exited, out: () => out, root };
}

t.test('two host processes on one Postgres, a client process failing over between them', async (t) => {
  t.before(() => {
    if (!existsSync(serverJs)) throw new Error(`${serverJs} is missing: run \`npm run build\` first`);
  });
  const cluster = await startPostgres();
  t.teardown(() => cluster.stop());
  const secretDir = await makeRoot({ mounts: false });
  t.teardown(secretDir.cleanup);
  await writeFile(`${secretDir.dir}/pg-url`, `${cluster.url}\n`, { mode: 0o600 });
  await chmod(`${secretDir.dir}/pg-url`, 0o600);

  const clientKey = generateSecretKey();
  const hostToml = `${ALL_OFF}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${getPublicKey(clientKey)}"]\nregistry = "postgres"\nregistry_connection_file = "${secretDir.dir}/pg-url"\n`;
  const hostA = await box(t, hostToml);
  const hostB = await box(t, hostToml.replace(`registry_connection_file = "${secretDir.dir}/pg-url"`, 'registry_connection_env = "MESH_PG_URL"'), {
    MESH_PG_URL: cluster.url,
  });
  // Both replicas have announced themselves in the shared registry before the client registers.
  const db = new pg.Client({ connectionString: cluster.url });
  await db.connect();
  t.teardown(() => db.end());
  await waitFor('two replicas', async () => (await db.query('SELECT url FROM mesh_replicas')).rowCount === 2);

  const client = await box(t, `${ALL_OFF}[mesh]\nmode = "client"\nhost_url = "${hostA.url}"\n`, {}, clientKey);
  const fed = async () => (await client.get('/health'))['federation'] as Record<string, unknown>;
  const registered = await waitFor('registered at A', async () => ((await fed())['state'] === 'registered' ? fed() : undefined), 20_000);
  t.match(registered, { host: hostA.url, hostUrl: hostA.url });
  const listedAtB = (await hostB.get('/v1/mesh/members'))['members'] as Array<Record<string, unknown>>;
  t.match(listedAtB, [{ pubkey: getPublicKey(clientKey), state: 'registered', api_endpoint: client.url }], 'B lists the member A registered');

  hostA.child.kill('SIGKILL');
  await hostA.exited;
  const moved = await waitFor(
    'heartbeating at B',
    async () => {
      const f = await fed();
      return f['state'] === 'registered' && f['host'] === hostB.url && f['lastError'] === null ? f : undefined;
    },
    20_000,
  );
  t.equal(moved['sessionId'], registered['sessionId'], 'the same session continues at the other replica (shared registry)');
  t.match(client.out(), /"event":"MeshHostUnavailable"/, 'the failure was seen and backed off');

  client.child.kill('SIGTERM');
  t.equal(await client.exited, 0, 'the client stops cleanly');
  t.match(client.out(), /"event":"MeshDeregistered"/);
  t.same((await hostB.get('/v1/mesh/members'))['members'], [], 'deregistered through B on SIGTERM');
  t.notMatch(hostB.out() + hostA.out(), /pg-test-secret/, 'the connection string is not logged');
});

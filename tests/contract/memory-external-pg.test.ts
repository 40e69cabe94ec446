// memory/external-pg through the resolver: the memory contract against PGlite + pgvector over the wire,
// faults (backend down at start, backend gone mid-run) and a plain Debian Postgres without pgvector.
import t from 'tap';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AdapterUnavailableError } from '../../management-api/src/adapter-errors.js';
import { startPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { memoryContract, seededVector } from './memory.contract.js';
import { MESH_CLIENT, onlySlot, startSlot } from './pods-harness.js';
import { freePort, startPglite } from './support/memory-pglite.js';

const DIM = 384;
const manifest = onlySlot('memory', 'external-pg', `${MESH_CLIENT}[integrations.memory]\nconnection_env = "AGENTBOX_PG_URL"\n`);
const FAST = { connectTimeoutMs: 3_000, healthIntervalMs: 200, healthTimeoutMs: 1_000, reconnectInitialMs: 100, reconnectMaxMs: 300 };

t.test('contract against PGlite + pgvector served over the wire protocol', async (t) => {
  const server = await startPglite();
  t.teardown(() => server.stop());
  memoryContract(t, () => startSlot('memory', manifest, { env: { AGENTBOX_PG_URL: server.url } }), { dimension: DIM });
});

t.test('the connection string can come from a 0600 file', async (t) => {
  const server = await startPglite();
  t.teardown(() => server.stop());
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-pg-secret-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'pg-url');
  writeFileSync(file, `${server.url}\n`);
  chmodSync(file, 0o600);
  const h = await startSlot(
    'memory',
    onlySlot('memory', 'external-pg', `${MESH_CLIENT}[integrations.memory]\nconnection_file = "${file}"\ntable = "file_memory"\n`),
  );
  t.teardown(() => h.close());
  t.equal(h.state(), 'healthy', h.reason() ?? 'the slot is healthy');
  await h.ops.store('f', { id: 'one', text: 'from a file' });
  t.equal((await h.ops.retrieve('f', 'one')).text, 'from a file');
});

t.test('an unset variable degrades the slot with a reason naming the variable', async (t) => {
  const h = await startSlot('memory', manifest, { env: {}, timing: { ...FAST, reconnectInitialMs: 60_000 } });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /AGENTBOX_PG_URL.*not set/);
});

t.test('backend down at start: degraded, then healthy once it comes up; the password never shows', async (t) => {
  const port = await freePort();
  const url = `postgres://agentbox:do-not-print-me@127.0.0.1:${port}/postgres`;
  const h = await startSlot('memory', manifest, { env: { AGENTBOX_PG_URL: url }, timing: FAST });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), new RegExp(`127\\.0\\.0\\.1:${port}`), 'the reason names the target');
  t.notMatch(h.reason(), /do-not-print-me/, 'but not the password');
  await t.rejects(h.ops.store('late', { text: 'too early' }), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
  const server = await startPglite({ port, password: 'do-not-print-me' });
  t.teardown(() => server.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 20_000);
  await h.ops.store('late', { id: 'ok', text: 'stored after recovery' });
  t.equal((await h.ops.retrieve('late', 'ok')).text, 'stored after recovery');
});

t.test('backend gone mid-run: clear unavailable errors, and every acknowledged store is there after it returns', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'agentbox-pglite-data-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  let server = await startPglite({ port, dataDir });
  // No periodic probe: the store must be the first to meet the outage, or a probe while the server
  // stops would degrade the slot and the store would be refused as degraded instead.
  const h = await startSlot('memory', manifest, { env: { AGENTBOX_PG_URL: server.url }, timing: { ...FAST, healthIntervalMs: 600_000 } });
  t.teardown(() => h.close());
  t.equal(h.state(), 'healthy', h.reason() ?? 'the slot is healthy');
  const acknowledged: string[] = [];
  for (let i = 0; i < 25; i++) acknowledged.push((await h.ops.store('durable', { id: `a${i}`, text: `acknowledged ${i}`, vector: seededVector(i, DIM) })).id);
  await server.stop();
  const failure = await h.ops.store('durable', { id: 'lost', text: 'not acknowledged' }).then(
    () => undefined,
    (err: unknown) => err,
  );
  t.ok(failure instanceof AdapterUnavailableError, 'the store is refused as unavailable');
  t.match(failure, { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', statusCode: 503, message: /memory.*backend unavailable: store failed/ });
  t.equal(h.state(), 'degraded', 'the failure degrades the slot at once');
  await t.rejects(
    h.ops.search('durable', { text: 'acknowledged', k: 1 }),
    { code: 'ABX_ERR_ADAPTER_DEGRADED' },
    'and later calls are refused without touching the backend',
  );
  server = await startPglite({ port, dataDir });
  t.teardown(() => server.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 20_000);
  for (const id of acknowledged) t.equal((await h.ops.retrieve('durable', id)).id, id, `${id} survived`);
  t.equal((await h.ops.list('durable', { limit: 100 })).items.length, 25);
  t.equal((await h.ops.search('durable', { vector: seededVector(4, DIM), k: 1 }))[0]?.id, 'a4');
});

t.test('a real Postgres without pgvector: permanently degraded, naming the package and the statement', async (t) => {
  const cluster = await startPostgres();
  t.teardown(() => cluster.stop());
  const h = await startSlot('memory', manifest, { env: { AGENTBOX_PG_URL: cluster.url }, timing: FAST });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(
    h.reason(),
    /the Postgres server lacks the pgvector extension: install postgresql-1\d-pgvector \(or use a server with it\) and run CREATE EXTENSION vector/,
  );
  t.notMatch(h.reason(), /pg-test-secret/, 'no password in the reason');
  await new Promise((r) => setTimeout(r, 600));
  t.equal(h.state(), 'degraded', 'permanent: no reconnect turns it healthy');
  await t.rejects(h.ops.store('x', { text: 'x' }), { code: 'ABX_ERR_ADAPTER_DEGRADED', message: /lacks the pgvector extension/ });
});

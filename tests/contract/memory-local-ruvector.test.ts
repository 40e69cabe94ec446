// memory/local-ruvector through the resolver: the memory contract, plus what only the local store has
// (files under the state volume, restarts, the index path and its recall guard, a changed dimension).
import t from 'tap';
import { waitFor } from '../helpers/wait.js';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { AdapterContext, AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { MemoryAdapter } from '../../management-api/src/adapters/memory/memory-adapter.js';
import * as localModule from '../../management-api/src/adapters/memory/local-ruvector.js';
import { RuvectorIndex } from '../../management-api/src/adapters/memory/ruvector-index.js';
import { memoryContract, seededVector } from './memory.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

const DIM = 384;
const manifest = onlySlot('memory', 'local-ruvector');

/** The real module with a smaller exact-search threshold, so small tests reach the HNSW index. */
function indexed(exactBelow: number, created: localModule.LocalRuvectorMemory[] = []): { memory: AdapterModule<MemoryAdapter, 'memory'> } {
  return {
    memory: {
      ADAPTER: localModule.ADAPTER,
      CONTRACT_VERSION: localModule.CONTRACT_VERSION,
      create: (context: AdapterContext<'memory'>) => {
        const adapter = new localModule.LocalRuvectorMemory(context, { exactBelow });
        created.push(adapter);
        return adapter;
      },
    },
  };
}

t.test('contract (default: exact below 5,000 vectors)', async (t) => {
  memoryContract(t, () => startSlot('memory', manifest), { dimension: DIM });
});

t.test('contract with every namespace on the HNSW index', async (t) => {
  memoryContract(t, () => startSlot('memory', manifest, { overrides: indexed(0) }), { dimension: DIM });
});

t.test('data lives under <state>/memory and survives a restart on the same volume', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-restart-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('memory', manifest, { root, overrides: indexed(0) });
  for (let i = 0; i < 30; i++) await first.ops.store('kept', { id: `k${i}`, text: `kept ${i}`, vector: seededVector(i, DIM) });
  await first.ops.store('other', { id: 'x', text: 'another namespace' });
  await first.ops.delete('kept', 'k3');
  const dir = path.join(first.paths.stateDir, 'memory');
  await first.close();
  t.ok(existsSync(path.join(dir, 'catalog.sqlite')), 'the catalogue file');
  t.equal(readdirSync(path.join(dir, 'index')).filter((f) => f.endsWith('.rvdb')).length, 2, 'one index file per namespace');
  t.notOk(existsSync(path.join(root, 'ruvector.db')) || existsSync('ruvector.db'), 'nothing written to the working directory');

  const created: localModule.LocalRuvectorMemory[] = [];
  const second = await startSlot('memory', manifest, { root, overrides: indexed(0, created) });
  t.teardown(() => second.close());
  t.equal(second.state(), 'healthy');
  t.match(await second.ops.retrieve('kept', 'k7'), { text: 'kept 7' });
  await t.rejects(second.ops.retrieve('kept', 'k3'), { code: 'ABX_ERR_NOT_FOUND' }, 'the delete survived too');
  t.equal((await second.ops.list('kept', { limit: 100 })).items.length, 29);
  // As in the repair case below: a reopened engine can answer poorly for a while under load, and
  // the recall guard keeps the namespace exact until a retried calibration passes.
  const reopened = await waitFor(
    'index mode after the reopen',
    async () => {
      await second.ops.search('kept', { vector: seededVector(12, DIM), k: 1 });
      await created[0]!.settled('kept');
      return created[0]!.stats('kept')?.mode === 'index';
    },
    20_000,
    1000,
  ).catch(() => false);
  if (reopened) t.match(created[0]!.stats('kept'), { mode: 'index', size: 29 }, 'answered by the reopened index');
  else t.ok((created[0]!.stats('kept')?.recall ?? 1) < 0.95, 'exact mode only because the measured recall was below target');
  t.equal((await second.ops.search('kept', { vector: seededVector(12, DIM), k: 1 }))[0]?.id, 'k12', 'the nearest memory is right either way');
});

t.test('a store interrupted between the catalogue and the index is repaired at the next connect', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-repair-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('memory', manifest, { root, overrides: indexed(0) });
  for (let i = 0; i < 20; i++) await first.ops.store('repair', { id: `r${i}`, text: `r ${i}`, vector: seededVector(200 + i, DIM) });
  const file = path.join(first.paths.stateDir, 'memory', 'catalog.sqlite');
  await first.close();
  // What a crash after the catalogue commit leaves: a row the index never saw.
  const db = new BetterSqlite3(file);
  const vector = Float32Array.from(seededVector(999, DIM));
  db.prepare('INSERT INTO memories (namespace, id, text, metadata, vector, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
    'repair',
    'orphan',
    'only in the catalogue',
    '{}',
    Buffer.from(vector.buffer),
    new Date().toISOString(),
  );
  db.close();
  const created: localModule.LocalRuvectorMemory[] = [];
  const second = await startSlot('memory', manifest, { root, overrides: indexed(0, created) });
  t.teardown(() => second.close());
  // Right after a reopen the engine may still be rebuilding its graph, and under heavy load its
  // answers can stay poor for a while; a failed calibration is retried after its back-off.
  const reachedIndex = await waitFor(
    'index mode after the reopen',
    async () => {
      await second.ops.search('repair', { vector, k: 1 });
      await created[0]!.settled('repair');
      return created[0]!.stats('repair')?.mode === 'index';
    },
    20_000,
    1000,
  ).catch(() => false);
  if (!reachedIndex) {
    // The recall guard refused the index: answers come from the exact scan, and must still be right.
    t.ok((created[0]!.stats('repair')?.recall ?? 1) < 0.95, 'exact mode only because the measured recall was below target');
  }
  t.equal((await second.ops.search('repair', { vector, k: 1 }))[0]?.id, 'orphan', reachedIndex ? 'found through the index' : 'found by the exact scan');
});

t.test('a large index reopens in its worker: the API thread runs on, answers are exact meanwhile, changes made during the open reach the index', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-reopen-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const N = 3000;
  const first = await startSlot('memory', manifest, { root, overrides: indexed(0) });
  for (let i = 0; i < N; i++) await first.ops.store('big', { id: `b${i}`, text: `b ${i}`, vector: seededVector(5000 + i, DIM) });
  await first.close();

  // The engine rebuilds the graph of a reopened file (seconds per 10,000 vectors). Count how long
  // the API thread goes without running a 5 ms timer while that happens.
  let last = performance.now();
  let longestStall = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    longestStall = Math.max(longestStall, now - last);
    last = now;
  }, 5);
  t.teardown(() => clearInterval(ticker));
  const created: localModule.LocalRuvectorMemory[] = [];
  const openedAt = performance.now();
  const second = await startSlot('memory', manifest, { root, overrides: indexed(0, created) });
  t.teardown(() => second.close());
  t.equal(second.state(), 'healthy', 'the slot is healthy at once, before the index has opened');
  // Changes while the index opens: one new memory, one replaced vector, one deleted.
  const late = seededVector(90_001, DIM);
  const replaced = seededVector(90_002, DIM);
  await second.ops.store('big', { id: 'late', text: 'stored during the open', vector: late });
  await second.ops.store('big', { id: 'b2', text: 'b 2, new vector', vector: replaced });
  await second.ops.delete('big', 'b1');
  t.equal((await second.ops.search('big', { vector: late, k: 1 }))[0]?.id, 'late', 'a memory stored during the open is found (exactly)');
  await created[0]!.settled('big');
  const openMs = performance.now() - openedAt;
  clearInterval(ticker);
  t.ok(longestStall < openMs / 4, `the API thread never stalled for long (longest ${longestStall.toFixed(0)} ms during an open of ${openMs.toFixed(0)} ms)`);

  const reachedIndex = await waitFor(
    'index mode after the reopen',
    async () => {
      await created[0]!.settled('big');
      return created[0]!.stats('big')?.mode === 'index';
    },
    20_000,
    1000,
  ).catch(() => false);
  if (!reachedIndex) t.ok((created[0]!.stats('big')?.recall ?? 1) < 0.95, 'exact mode only because the measured recall was below target');
  // The index is approximate: one exact-match query through it misses its own point now and then
  // (measured here: 1 in 20 with 18 candidates), so search with room, and check the index file itself below.
  const how = reachedIndex ? 'through the index' : 'by the exact scan';
  t.ok(
    (await second.ops.search('big', { vector: late, k: 20 })).some((h) => h.id === 'late'),
    `the memory stored during the open, ${how}`,
  );
  t.ok(
    (await second.ops.search('big', { vector: replaced, k: 20 })).some((h) => h.id === 'b2'),
    `the vector replaced during the open, ${how}`,
  );
  t.notOk(
    (await second.ops.search('big', { vector: seededVector(5001, DIM), k: 5 })).some((h) => h.id === 'b1'),
    'the memory deleted during the open stays gone',
  );
  t.equal(created[0]!.stats('big')?.size, N, 'N - 1 + 1 memories');
  await second.close();

  // Every stored memory reached the index file, the ones changed during the open included.
  const file = readdirSync(path.join(second.paths.stateDir, 'memory', 'index')).find((f) => f.endsWith('.rvdb'))!;
  const index = new RuvectorIndex(path.join(second.paths.stateDir, 'memory', 'index', file), DIM);
  t.teardown(() => index.close());
  await index.ready;
  const ids = ['late', ...Array.from({ length: N }, (_, i) => `b${i}`).filter((id) => id !== 'b1')];
  t.same(await index.missing(ids), [], 'the index holds every stored id');
});

t.test('a store of another dimension is refused permanently, naming the fix', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-dim-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('memory', manifest, { root });
  await first.ops.store('d', { text: 'written at 384' });
  await first.close();
  const second = await startSlot('memory', `${manifest}[integrations.memory]\ndimension = 768\n`, { root, timing: { reconnectInitialMs: 60_000 } });
  t.teardown(() => second.close());
  t.equal(second.state(), 'degraded');
  t.match(second.reason(), /holds 384-dimensional vectors but integrations\.memory\.dimension is 768: set dimension = 384/);
  await t.rejects(second.ops.search('d', { text: 'x', k: 1 }), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
});

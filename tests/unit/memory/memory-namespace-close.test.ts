// Closing a memory namespace while its index worker is still opening: what the index file holds afterwards.
import t from 'tap';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { normalized } from '../../../management-api/src/adapters/memory/memory-input.js';
import { MemoryNamespace } from '../../../management-api/src/adapters/memory/memory-namespace.js';
import { RuvectorIndex } from '../../../management-api/src/adapters/memory/ruvector-index.js';
import { seededVector } from '../../contract/memory.contract.js';

const DIM = 32;
const IDS = Array.from({ length: 20 }, (_, i) => `m${i}`);

function vector(seed: number): Float32Array {
  return Float32Array.from(seededVector(seed, DIM));
}

/** A namespace as the adapter builds it at connect: every catalogue vector in memory, index not yet open. */
function namespace(file: string, vectors: Map<string, Float32Array>, lines: string[] = []): MemoryNamespace {
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
  const ns = new MemoryNamespace('n', file, { dimension: DIM, exactBelow: 0, logger });
  for (const [id, v] of vectors) ns.matrix.set(id, normalized(v));
  return ns;
}

/** Block the API thread, as a loaded machine does: timers fall due while no worker reply is handled. */
function starveApiThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

t.test('a close during the open finishes it: the index file exists and holds no stale vector, so the next open repairs everything', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-ns-close-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'n.rvdb');
  const catalogue = new Map(IDS.map((id, i) => [id, vector(i)]));

  // A fresh namespace closed at once: the worker has not created its database yet.
  const fresh = namespace(file, new Map());
  fresh.openIndex();
  for (const [id, v] of catalogue) await fresh.put(id, v);
  await fresh.close();
  t.ok(existsSync(file), 'the index file exists after the close');

  // Restart; during the open one vector is replaced and one deleted, then the API thread is
  // starved past any close deadline before a single worker reply has been handled.
  const replaced = vector(1000);
  const restarted = namespace(file, catalogue);
  restarted.openIndex();
  catalogue.set('m3', replaced);
  await restarted.put('m3', replaced);
  catalogue.delete('m5');
  await restarted.remove('m5');
  const closing = restarted.close();
  starveApiThread(2_500);
  await closing;

  const raw = new RuvectorIndex(file, DIM);
  t.teardown(() => raw.close());
  await raw.ready;
  t.same(await raw.missing(['m3', 'm5']), ['m3', 'm5'], 'the replaced and the deleted id are gone from the index, old vectors and all');
  await raw.close();

  // The next open inserts what the index lacks: every id, each with its current vector.
  const third = namespace(file, catalogue);
  third.openIndex();
  await third.settled();
  await third.close();
  const check = new RuvectorIndex(file, DIM);
  t.teardown(() => check.close());
  await check.ready;
  t.same(await check.missing([...catalogue.keys()]), [], 'the index holds every stored id');
  // 19 points and efSearch 300: the engine's search visits them all, so the nearest is exact.
  t.same(await check.search(normalized(replaced), 1), ['m3'], 'the replaced id is found by its new vector');
});

function liveThreads(): number {
  return Number(/^Threads:\s+(\d+)/m.exec(readFileSync('/proc/self/status', 'utf8'))![1]);
}

t.test('closing ends the worker of an index that failed to open, without logging a failure of its own', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-ns-broken-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'n.rvdb');
  writeFileSync(file, Buffer.alloc(65_536, 0x5a));
  const lines: string[] = [];
  const ns = namespace(file, new Map([['a', vector(1)]]), lines);
  ns.openIndex();
  await ns.settled();
  const withWorker = liveThreads();
  t.match(ns.stats(), { indexBroken: true, mode: 'exact' }, 'an unreadable index file leaves the namespace exact');
  t.equal(lines.filter((l) => l.includes('MemoryIndexFailed')).length, 1, 'the failed open is logged once');
  await ns.close();
  t.comment(`threads: ${withWorker} with the worker, ${liveThreads()} after the close`);
  t.ok(liveThreads() < withWorker, 'the close ended the index worker thread');
  t.equal(lines.filter((l) => l.includes('MemoryIndexFailed')).length, 1, 'the close itself logs no failure');
});

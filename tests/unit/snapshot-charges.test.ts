// What each snapshot is charged, on a real store: every chunk paid for by the oldest snapshot that refers to it, so the charges
// add up to what the store's packs hold after any deletes, in any order, and the same after the store is opened again; the same
// whether the entries files are read on the API's thread or in worker threads (large ones), and what each shares too.
import t, { type Test } from 'tap';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { SnapshotSummary } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-snapshot-charges-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** A tree holding files `from`..`to`-1, file i always the same bytes (so trees overlapping in i share chunks). */
function tree(name: string, from: number, to: number): string {
  const dir = path.join(work, name);
  mkdirSync(dir, { recursive: true });
  for (let i = from; i < to; i++) writeFileSync(path.join(dir, `f${i}.bin`), Buffer.alloc(10_000 + i * 37, i));
  return dir;
}

async function snap(store: SnapshotStore, dir: string, agent: string): Promise<SnapshotSummary> {
  const fd = await open(dir, DIR_FLAGS);
  try {
    return await store.create({ rootFd: fd.fd, ownUid: process.getuid?.() ?? 0, agent: { id: agent, name: agent, cwd: agent } });
  } finally {
    await fd.close();
  }
}

/** The charges of every snapshot kept, by id. */
async function chargesOf(store: SnapshotStore): Promise<Record<string, number>> {
  const charged = await store.charges();
  return Object.fromEntries(store.list().map((s) => [s.id, charged(s)]));
}

const sum = (charges: Record<string, number>) => Object.values(charges).reduce((a, b) => a + b, 0);

/** Where entries files are read: every one on the API's thread (as small ones are), or every one in a worker thread (as large ones are). */
const readers = { 'on the thread': undefined, 'in worker threads': 0 } as const;

async function openStore(t: Test, dir: string, inlineEntriesBytes?: number): Promise<SnapshotStore> {
  const store = new SnapshotStore({ dir, logger: pino({ level: 'silent' }), ...(inlineEntriesBytes === undefined ? {} : { inlineEntriesBytes }) });
  await store.open();
  t.teardown(() => store.close());
  return store;
}

const trees = { a: tree('a', 0, 10), b: tree('b', 5, 15), c: tree('c', 10, 20), d: tree('d', 0, 20) };
const deleteOrders = [
  ['a', 'b', 'c'],
  ['b', 'a', 'd'],
  ['d', 'c', 'a'],
];

for (const [reader, inline] of Object.entries(readers))
  for (const order of deleteOrders) {
    t.test(
      `entries read ${reader}, deleted in the order ${order.join(', ')}: the charges add up to what the packs hold, after each delete and after a reopen`,
      async (t) => {
        const dir = path.join(work, `store-${inline ?? 'main'}-${order.join('')}`);
        let store = await openStore(t, dir, inline);
        const made: Record<string, SnapshotSummary> = {};
        for (const name of ['a', 'b', 'c', 'd'] as const) made[name] = await snap(store, trees[name], `agt_${name}`);
        const fresh = await chargesOf(store);
        t.same(fresh, Object.fromEntries(Object.values(made).map((s) => [s.id, s.stats.addedBytes])), 'before any delete, each pays what it added when made');
        t.equal(fresh[made.d!.id], 0, 'the newest, holding only what the others hold, pays nothing');
        t.equal(sum(fresh), await store.storedBytes(), 'together, every byte the packs hold');
        for (const name of order) {
          await store.delete(made[name]!.id);
          const after = await chargesOf(store);
          t.equal(sum(after), await store.storedBytes(), `after ${name} is deleted, still every byte the packs hold`);
          for (const [id, bytes] of Object.entries(after)) t.ok(bytes >= fresh[id]!, `no snapshot pays less than before (${id})`);
        }
        const before = await chargesOf(store);
        await store.close();
        store = await openStore(t, dir, inline);
        t.same(await chargesOf(store), before, 'the same charges when the store is opened again');
        const again = await snap(store, trees.d, 'agt_e');
        t.equal((await chargesOf(store))[again.id], again.stats.addedBytes, 'a snapshot made after them pays what it added');
      },
    );
  }

t.test('an entries file that cannot be read: each snapshot is charged what it added, and the error is logged', async (t) => {
  const dir = path.join(work, 'store-damaged');
  const lines: Array<{ event?: string }> = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as { event?: string }) });
  const first = new SnapshotStore({ dir, logger });
  await first.open();
  const a = await snap(first, trees.a, 'agt_a');
  const b = await snap(first, trees.b, 'agt_b');
  await first.close();
  writeFileSync(path.join(dir, 'manifests', `${a.id}.entries`), 'not entries\n');
  const store = new SnapshotStore({ dir, logger });
  await store.open();
  t.teardown(() => store.close());
  const charged = await store.charges();
  t.same([charged(a), charged(b)], [a.stats.addedBytes, b.stats.addedBytes]);
  t.ok(
    lines.some((l) => l.event === 'SnapshotChargesUnknown'),
    'SnapshotChargesUnknown logged',
  );
});

t.test('what each snapshot shares, and what a sweep frees: the same read on the thread or in worker threads', async (t) => {
  const dir = path.join(work, 'store-sharing');
  const first = await openStore(t, dir);
  const made = [];
  for (const name of ['a', 'b', 'c', 'd'] as const) made.push(await snap(first, trees[name], `agt_${name}`));
  await first.close();
  const sharing: Record<string, unknown> = {};
  for (const [reader, inline] of Object.entries(readers)) {
    const store = await openStore(t, dir, inline);
    sharing[reader] = await Promise.all(made.map((s) => store.sharing(s.id)));
    await store.close();
  }
  t.same(sharing['in worker threads'], sharing['on the thread']);
  const shared = sharing['on the thread'] as Array<{ sharedBytes: number; exclusiveBytes: number }>;
  t.ok(shared[3]!.sharedBytes > 0 && shared[3]!.exclusiveBytes === 0, 'd holds only what the others hold');
  // A delete's sweep frees the same chunks either way: two copies of the store, one swept each way.
  const freed: Record<string, unknown> = {};
  for (const [reader, inline] of Object.entries(readers)) {
    const copy = path.join(work, `store-sweep-${inline ?? 'main'}`);
    cpSync(dir, copy, { recursive: true });
    const store = await openStore(t, copy, inline);
    freed[reader] = [await store.delete(made[0]!.id), await store.delete(made[3]!.id), await store.storedBytes()];
    await store.close();
  }
  t.same(freed['in worker threads'], freed['on the thread']);
  t.ok((freed['on the thread'] as Array<{ freedBytes: number }>)[1]!.freedBytes > 0, 'the second delete frees chunks only a and d held');
});

t.test('a damaged entries file read in a worker thread: the error names it, and the charges fall back as on the thread', async (t) => {
  const dir = path.join(work, 'store-damaged-threaded');
  const lines: Array<{ event?: string; err?: { message?: string } }> = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => lines.push(JSON.parse(line) as { event?: string }) });
  const first = new SnapshotStore({ dir, logger });
  await first.open();
  const a = await snap(first, trees.a, 'agt_a');
  await first.close();
  const damaged = path.join(dir, 'manifests', `${a.id}.entries`);
  writeFileSync(damaged, 'not entries\n');
  const store = new SnapshotStore({ dir, logger, inlineEntriesBytes: 0 });
  await store.open();
  t.teardown(() => store.close());
  await t.rejects(store.sharing(a.id), { message: new RegExp(`${damaged}.*do not match their recorded sha256`) });
  t.same((await store.charges())(a), a.stats.addedBytes);
  t.ok(
    lines.some((l) => l.event === 'SnapshotChargesUnknown' && l.err?.message?.includes(damaged)),
    'SnapshotChargesUnknown logged, naming the file',
  );
});

// The stat-ahead helper of a second snapshot, driven in this thread so the race that matters is made on purpose: the helper
// looks at every file first, then the agent renames and rewrites before the walk gets there. Its answers may be used only in
// a directory whose names are unchanged since the previous snapshot; elsewhere the walk must look itself.
import t, { type Test } from 'tap';
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { capture } from '../../management-api/src/snapshots/capture.js';
import { CaptureCache, type KeptSnapshot } from '../../management-api/src/snapshots/capture-cache.js';
import { MAX_SNAPSHOT_ENTRIES } from '../../management-api/src/snapshots/capture-entries-cap.js';
import { ensureStoreDirs } from '../../management-api/src/snapshots/object-store.js';
import type { SnapshotEntry } from '../../management-api/src/snapshots/snapshot-manifest.js';
import type { CaptureJob, CaptureResult } from '../../management-api/src/snapshots/snapshot-protocol.js';
import { type AheadPlan, PENDING, StatAhead } from '../../management-api/src/snapshots/stat-ahead.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-stat-ahead-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
let made = 0;

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A workspace of a few directories of small files, each file's content naming it. */
function fill(ws: string): void {
  for (const dir of ['d1', 'd2', 'd3']) {
    mkdirSync(path.join(ws, dir), { recursive: true });
    for (let i = 0; i < 20; i++) writeFileSync(path.join(ws, dir, `f${i}.txt`), `${dir}/f${i} as first written\n`);
  }
}

/** The file entries of a capture, by path. */
function files(result: CaptureResult): Map<string, Extract<SnapshotEntry, { type: 'file' }>> {
  const out = new Map<string, Extract<SnapshotEntry, { type: 'file' }>>();
  for (const line of new TextDecoder().decode(result.entriesText).split('\n')) {
    if (line === '') continue;
    const e = JSON.parse(line) as SnapshotEntry;
    if (e.type === 'file') out.set(e.path, e);
  }
  return out;
}

/** A capture of `ws` in this thread, with `cache` (which keeps what the next one reuses) and `ahead`. */
function captureHere(ws: string, storeDir: string, cache: CaptureCache, previous: CaptureResult | undefined, ahead?: Pick<StatAhead, 'start'>) {
  const rootFd = openSync(ws, DIR_FLAGS);
  try {
    const job: CaptureJob = {
      op: 'capture',
      rootFd,
      ownUid: process.getuid?.() ?? 0,
      storeDir,
      pack: `p${made++}`,
      durable: false,
      // Files written by this test are seconds old at most: without this, none would get a key to reuse.
      racyMs: -60_000,
      maxHoleBytes: 1 << 30,
      maxEntries: MAX_SNAPSHOT_ENTRIES,
      // Kept by `cache` under its sha256: the file itself is not read.
      ...(previous ? { previous: { entriesFile: path.join(storeDir, 'unused'), entriesSha256: previous.entriesSha256 } } : {}),
    };
    return capture(job, cache, ahead);
  } finally {
    closeSync(rootFd);
  }
}

/** Block this thread until the helper has answered for every file of `plan` (a guard against a helper that never does). */
function waitForHelper(plan: AheadPlan): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const { state } = plan.job;
  const until = Date.now() + 30_000;
  for (;;) {
    let pending = 0;
    for (let slot = 0; slot < state.length - 1; slot++) if (Atomics.load(state, slot) === PENDING) pending++;
    if (pending === 0) return;
    if (Date.now() > until) throw new Error(`the helper left ${pending} files unanswered`);
    Atomics.wait(nap, 0, 0, 2);
  }
}

/** A StatAhead whose capture waits for the helper to look at everything, then runs `meanwhile` (the agent acting) before walking. */
function helperFirst(helper: StatAhead, meanwhile: () => void): Pick<StatAhead, 'start'> & { plans: number } {
  const wrapper = {
    plans: 0,
    start(previous: KeptSnapshot) {
      const plan = helper.start(previous);
      if (plan) {
        wrapper.plans++;
        waitForHelper(plan);
        meanwhile();
      }
      return plan;
    },
  };
  return wrapper;
}

/** A filled workspace and its store, the first snapshot of it taken in this thread, and a helper that takes any tree (ended with `t`). */
function firstSnapshot(t: Test, tag: string) {
  const ws = path.join(work, `ws-${tag}`);
  const storeDir = path.join(work, `store-${tag}`);
  ensureStoreDirs(storeDir);
  fill(ws);
  const cache = new CaptureCache();
  const helper = new StatAhead(2, 1);
  t.teardown(() => helper.close());
  return { ws, storeDir, cache, helper, first: captureHere(ws, storeDir, cache, undefined) };
}

t.test('the helper looks first; its answers are used where the names are unchanged, never where they moved', async (t) => {
  const { ws, storeDir, cache, helper, first } = firstSnapshot(t, 'race');
  t.equal(first.stats.files, 60, 'the first snapshot read every file');

  // Before the capture: changed, so the helper answers 'differs' and the walk reads it.
  writeFileSync(path.join(ws, 'd1', 'f3.txt'), 'd1/f3 rewritten before the snapshot, longer\n');
  const ahead = helperFirst(helper, () => {
    // After the helper looked, before the walk: f0 renamed away and a new f0 made, in d2 (its names change)…
    renameSync(path.join(ws, 'd2', 'f0.txt'), path.join(ws, 'd2', 'moved.txt'));
    writeFileSync(path.join(ws, 'd2', 'f0.txt'), 'd2/f0 made after the rename\n');
    // …and, in d3 (its names unchanged), a file rewritten in place after the helper saw it.
    writeFileSync(path.join(ws, 'd3', 'f5.txt'), 'd3/f5 written in place after the look, longer\n');
  });
  const second = captureHere(ws, storeDir, cache, first, ahead);
  t.equal(ahead.plans, 1, 'the second capture shared its lstats with the helper');
  const got = files(second);

  t.equal(got.get('d1/f3.txt')?.chunks[0], sha('d1/f3 rewritten before the snapshot, longer\n'), 'a file the helper found changed is read');
  t.equal(
    got.get('d2/f0.txt')?.chunks[0],
    sha('d2/f0 made after the rename\n'),
    'in a directory whose names changed, the new file at an old name is read, not paired with the old one',
  );
  t.equal(got.get('d2/moved.txt')?.chunks[0], sha('d2/f0 as first written\n'), 'and the renamed file is kept under its new name');
  t.equal(
    got.get('d3/f5.txt')?.chunks[0],
    sha('d3/f5 as first written\n'),
    'in a directory whose names are unchanged, a file is kept as the helper found it (as of its look, after the capture began)',
  );
  for (let i = 0; i < 20; i++) {
    if (i === 0) continue;
    t.equal(got.get(`d2/f${i}.txt`)?.chunks[0], sha(`d2/f${i} as first written\n`), `d2/f${i} kept`);
  }
  // d1 and d3 (40 files, one changed) from the helper; d2 (names moved) by the walk's own look.
  t.equal(second.stats.aheadFiles, 39, "the helper's answers were used in the unchanged directories only");
  t.equal(second.stats.reusedFiles, 39 + 19, 'the walk reused the unchanged files of d2 on its own look');
  t.equal(second.stats.files, 61, 'every file is in the snapshot');
});

t.test("without a helper's answer the walk looks itself: one core, or a helper still on its way, give the same snapshot", async (t) => {
  const ws = path.join(work, 'ws-plain');
  const storeDir = path.join(work, 'store-plain');
  ensureStoreDirs(storeDir);
  fill(ws);
  writeFileSync(path.join(ws, 'd3', 'big.bin'), Buffer.alloc(3 << 20, 7));
  const single = new StatAhead(1, 1);
  const racing = new StatAhead(2, 1);
  t.teardown(() => racing.close());
  const caches = { single: new CaptureCache(), racing: new CaptureCache() };
  const firsts = { single: captureHere(ws, storeDir, caches.single, undefined), racing: captureHere(ws, storeDir, caches.racing, undefined) };
  writeFileSync(path.join(ws, 'd2', 'f7.txt'), 'd2/f7 changed between the snapshots\n');
  renameSync(path.join(ws, 'd1', 'f1.txt'), path.join(ws, 'd1', 'renamed.txt'));
  const plain = captureHere(ws, storeDir, caches.single, firsts.single, single);
  // The helper and the walk race here as they do in a capture thread: who answers for a file is not fixed, what is kept is.
  const raced = captureHere(ws, storeDir, caches.racing, firsts.racing, racing);
  t.equal(plain.stats.aheadFiles, undefined, 'on one core there is no helper');
  t.same(files(raced), files(plain), 'the same entries whoever looked');
  t.equal(files(plain).get('d2/f7.txt')?.chunks[0], sha('d2/f7 changed between the snapshots\n'), 'the changed file is read');
  t.ok(files(plain).has('d1/renamed.txt') && !files(plain).has('d1/f1.txt'), 'the rename is seen');
  t.equal(plain.stats.reusedFiles, 59, 'every other file is reused');
  t.equal(raced.stats.reusedFiles, 59, 'by either way');
});

t.test('a prepared plan is the one its snapshot gets; another snapshot gets its own, and a small one none', async (t) => {
  const { cache, helper, first } = firstSnapshot(t, 'prepared');
  const kept = cache.newest!;
  helper.prepare(kept);
  const plan = helper.start(kept)!;
  t.ok(plan, 'a plan for the snapshot kept last');
  waitForHelper(plan);
  plan.end();
  t.equal(plan.job.state[plan.job.state.length - 1], 1, 'ended: the helper stops at its next file');
  const again = helper.start(kept)!;
  t.not(again.id, plan.id, 'a plan is used once: the next capture of the same snapshot gets a fresh one');
  waitForHelper(again);
  again.end();
  t.equal(new StatAhead(2, 1000).start(kept), undefined, 'a tree below the threshold gets no helper');
  t.equal(first.stats.files, 60);
});

// What a second snapshot may skip reading, on a real store with its real capture threads: only a file that is the very inode
// the previous snapshot read, with the same size and times; never a file replaced or rewritten in place, one changed just before
// it was read, or a chunk a sweep removed meanwhile. Every snapshot is built back and compared with the tree it was taken of.
import t, { type Test } from 'tap';
import { linkSync, mkdtempSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync, mkdirSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { RACY_MS } from '../../management-api/src/snapshots/capture.js';
import type { SnapshotSummary } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { SnapshotStore, type SnapshotStoreOptions } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-capture-reuse-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
let made = 0;

/** A tree of `files` small files; the file names and contents. */
function fill(dir: string, files: number, tag: string): void {
  mkdirSync(path.join(dir, 'src'), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(path.join(dir, 'src', `f${i}.txt`), `${tag} ${i}\n`.repeat(20 + i));
}

/** Every file under `dir` by relative path, with its content. */
function contents(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, contents(p, `${prefix}${e.name}/`));
    // A FIFO is never captured (and opening one would wait for a writer).
    else if (!e.isFIFO()) out[`${prefix}${e.name}`] = readFileSync(p, 'utf8');
  }
  return out;
}

async function newStore(t: Test, options: Partial<SnapshotStoreOptions> = {}, dir = path.join(work, `store-${made++}`)): Promise<SnapshotStore> {
  const store = new SnapshotStore({ dir, logger: pino({ level: 'silent' }), ...options });
  await store.open();
  t.teardown(() => store.close());
  return store;
}

/** Snapshot `tree` as `agent`, then build it back and check it is the tree as it was. */
async function snapAndCheck(t: Test, store: SnapshotStore, tree: string, agent: string) {
  const expected = contents(tree);
  const dir = await open(tree, DIR_FLAGS);
  let summary: SnapshotSummary;
  try {
    summary = await store.create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: agent, name: agent, cwd: agent } });
  } finally {
    await dir.close();
  }
  const back = path.join(work, `back-${made++}`);
  await store.materialize(summary.id, back, undefined, 'fork');
  t.same(contents(back), expected, `snapshot ${summary.id} builds back the tree it was taken of`);
  return summary;
}

t.test('a file replaced by another inode, or rewritten in place with its mtime set back, is read again', async (t) => {
  const store = await newStore(t);
  const tree = path.join(work, 'replaced');
  fill(tree, 10, 'v1');
  const f1 = path.join(tree, 'src/f1.txt');
  const f2 = path.join(tree, 'src/f2.txt');
  utimesSync(f1, 1_600_000_000, 1_600_000_000);
  utimesSync(f2, 1_600_000_000, 1_600_000_000);
  // Older than the racy margin, so the first snapshot's keys are kept.
  await sleep(RACY_MS + 20);
  const first = await snapAndCheck(t, store, tree, 'agt_replaced');
  t.equal(first.stats.reusedFiles, 0, 'the first snapshot reads every file');

  // Same size, same mtime: another inode renamed over f1; f2 rewritten in place (its ctime moves, which its owner cannot set back).
  const before1 = readFileSync(f1, 'utf8');
  writeFileSync(`${f1}.new`, before1.replace(/v1/g, 'X1'));
  utimesSync(`${f1}.new`, 1_600_000_000, 1_600_000_000);
  renameSync(`${f1}.new`, f1);
  writeFileSync(f2, readFileSync(f2, 'utf8').replace(/v1/g, 'X2'));
  utimesSync(f2, 1_600_000_000, 1_600_000_000);
  await sleep(RACY_MS + 20);
  const second = await snapAndCheck(t, store, tree, 'agt_replaced');
  t.equal(second.stats.reusedFiles, 8, 'the eight untouched files were taken unread, the two changed ones read');
  t.equal(second.stats.addedBytes, Buffer.byteLength(before1) + readFileSync(f2).length, 'their new content was stored');
});

t.test('a file changed just before it was read is read again by the next snapshot', async (t) => {
  // A margin of a minute makes every file of this test "just changed", whatever the machine's speed.
  const store = await newStore(t, { racyMs: 60_000 });
  const tree = path.join(work, 'racy');
  fill(tree, 5, 'r');
  await snapAndCheck(t, store, tree, 'agt_racy');
  const second = await snapAndCheck(t, store, tree, 'agt_racy');
  t.equal(second.stats.reusedFiles, 0, 'no key was trusted: every file read again');
  t.equal(second.stats.addedBytes, 0, 'and nothing new stored, the content being the same');
});

t.test('names added, removed, renamed or changed in kind in a directory are all seen; directories left alone are not listed again', async (t) => {
  const store = await newStore(t);
  const tree = path.join(work, 'listings');
  fill(tree, 10, 'l');
  mkdirSync(path.join(tree, 'keep/deep'), { recursive: true });
  writeFileSync(path.join(tree, 'keep/a.txt'), 'a\n');
  writeFileSync(path.join(tree, 'keep/deep/b.txt'), 'b\n');
  await sleep(RACY_MS + 20);
  const first = await snapAndCheck(t, store, tree, 'agt_listings');
  t.equal(first.stats.reusedDirs, 0, 'the first snapshot lists every directory');
  const same = await snapAndCheck(t, store, tree, 'agt_listings');
  t.equal(same.stats.reusedDirs, 4, 'nothing changed: the root, src, keep and keep/deep are taken unlisted');
  t.equal(same.stats.reusedFiles, 12, 'and every file unread');

  const src = (name: string) => path.join(tree, 'src', name);
  writeFileSync(src('f10.txt'), 'added\n');
  rmSync(src('f0.txt'));
  renameSync(src('f1.txt'), src('g1.txt'));
  rmSync(src('f2.txt'));
  mkdirSync(src('f2.txt'));
  writeFileSync(path.join(src('f2.txt'), 'inside'), 'a file became a directory\n');
  mkdirSync(src('new'));
  writeFileSync(path.join(src('new'), 'n.txt'), 'new directory\n');
  await sleep(RACY_MS + 20);
  const changed = await snapAndCheck(t, store, tree, 'agt_listings');
  t.equal(changed.stats.reusedDirs, 3, 'src is listed again (and its two new directories); the root, keep and keep/deep are not');
  t.equal(changed.stats.reusedFiles, 9, 'f3 to f9 and the two under keep are taken unread (g1, renamed, is read: a new name, and a rename moves its ctime)');

  // Another directory with the very same names renamed over src: another inode, so listed again, and its files read.
  const other = path.join(work, 'listings-other');
  mkdirSync(other);
  for (const name of readdirSync(path.join(tree, 'src'))) {
    if (name === 'f2.txt' || name === 'new') mkdirSync(path.join(other, name));
    else writeFileSync(path.join(other, name), `other ${name}\n`);
  }
  rmSync(path.join(tree, 'src'), { recursive: true });
  renameSync(other, path.join(tree, 'src'));
  await sleep(RACY_MS + 20);
  const swapped = await snapAndCheck(t, store, tree, 'agt_listings');
  t.equal(
    swapped.stats.reusedDirs,
    2,
    'the directory swapped in is listed, not taken for the one it replaced (as is the root it was renamed into); keep and keep/deep are not',
  );
  t.equal(swapped.stats.reusedFiles, 2, 'only the two files under keep are taken unread');
});

t.test('a workspace moved since the previous snapshot: its unchanged files and directories are still taken unread, from where they are now', async (t) => {
  const store = await newStore(t);
  const tree = path.join(work, 'moved-from');
  fill(tree, 4, 'm');
  await sleep(RACY_MS + 20);
  await snapAndCheck(t, store, tree, 'agt_moved');
  const moved = path.join(work, 'moved-to');
  renameSync(tree, moved);
  // The old path holds other files now, which must not be taken for the moved ones.
  fill(tree, 4, 'decoy');
  await sleep(RACY_MS + 20);
  const after = await snapAndCheck(t, store, moved, 'agt_moved');
  t.equal(after.stats.reusedFiles, 4, 'the four files taken unread at their new place');
  t.equal(after.stats.reusedDirs, 1, 'src taken unlisted (the root moved, so its ctime did)');
});

t.test('a directory changed just before it was listed is listed again by the next snapshot', async (t) => {
  // A margin of a minute makes every directory of this test "just changed", whatever the machine's speed.
  const store = await newStore(t, { racyMs: 60_000 });
  const tree = path.join(work, 'racy-dirs');
  fill(tree, 3, 'rd');
  await snapAndCheck(t, store, tree, 'agt_racy_dirs');
  const second = await snapAndCheck(t, store, tree, 'agt_racy_dirs');
  t.equal(second.stats.reusedDirs, 0, 'no listing was trusted: every directory listed again');
  t.equal(second.stats.dirs, 1, 'and every one walked');
});

t.test('the next capture follows the packs on disk: chunks a delete swept are stored again, not taken as stored', async (t) => {
  const store = await newStore(t);
  const tree = path.join(work, 'swept');
  fill(tree, 6, 's');
  const first = await snapAndCheck(t, store, tree, 'agt_swept');
  await store.delete(first.id);
  t.equal(await store.storedBytes(), 0, 'the delete swept every chunk');
  // The same thread, which knew those chunks, captures the same content again.
  const again = await snapAndCheck(t, store, tree, 'agt_swept');
  t.equal(again.stats.addedBytes, first.stats.addedBytes, 'every chunk written again');
  t.equal(again.stats.reusedFiles, 0, 'no previous snapshot of the agent is left to reuse');
});

t.test('entries kept by a capture thread and entries read back from the store give the same snapshots', async (t) => {
  const dir = path.join(work, 'store-shared');
  const tree = path.join(work, 'kept');
  fill(tree, 12, 'k');
  await sleep(RACY_MS + 20);
  const one = await newStore(t, {}, dir);
  await snapAndCheck(t, one, tree, 'agt_kept');
  writeFileSync(path.join(tree, 'src/f3.txt'), 'second\n');
  await sleep(RACY_MS + 20);
  const second = await snapAndCheck(t, one, tree, 'agt_kept');
  t.equal(second.stats.reusedFiles, 11, 'the thread reused its own entries of the first snapshot');
  t.equal(second.stats.reusedDirs, 2, 'and its listings of the two directories, neither changed');
  await one.close();
  // A new store on the same directory: its threads know nothing, so they read the entries file.
  const two = await newStore(t, {}, dir);
  writeFileSync(path.join(tree, 'src/f4.txt'), 'third\n');
  await sleep(RACY_MS + 20);
  const third = await snapAndCheck(t, two, tree, 'agt_kept');
  t.equal(third.stats.reusedFiles, 11, 'the entries read back from the store serve the same');
  t.equal(third.stats.reusedDirs, 2, 'and their listings too: each directory entry keeps its stamp and how many names it held');
});

t.test('read back from the store, a listing with a name left out is listed again: what is left out stays left out', async (t) => {
  const dir = path.join(work, 'store-left-out');
  const tree = path.join(work, 'left-out');
  fill(tree, 3, 'lo');
  mkdirSync(path.join(tree, 'pipes'));
  writeFileSync(path.join(tree, 'pipes/kept.txt'), 'kept\n');
  execFileSync('mkfifo', [path.join(tree, 'pipes/fifo')]);
  await sleep(RACY_MS + 20);
  const one = await newStore(t, {}, dir);
  const first = await snapAndCheck(t, one, tree, 'agt_left_out');
  t.equal(first.stats.skipped, 1, 'the FIFO left out');
  await one.close();
  const two = await newStore(t, {}, dir);
  const again = await snapAndCheck(t, two, tree, 'agt_left_out');
  t.equal(again.stats.skipped, 1, 'left out again: its directory was listed, not taken from entries that lack it');
  t.equal(again.stats.reusedDirs, 2, 'the root and src taken unlisted; pipes listed');
  t.equal(again.stats.reusedFiles, 4, 'every file taken unread all the same');
  // Entries of an older version (no key on directories): every directory listed again.
  const entriesFile = path.join(dir, 'manifests', `${again.id}.entries`);
  await two.close();
  const summaryFile = path.join(dir, 'manifests', `${again.id}.json`);
  const oldStyle = `${readFileSync(entriesFile, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => {
      const { key, ...entry } = JSON.parse(l) as { type: string; key?: string };
      return JSON.stringify(entry.type === 'dir' ? entry : { ...entry, key });
    })
    .join('\n')}\n`;
  writeFileSync(entriesFile, oldStyle);
  const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as SnapshotSummary;
  writeFileSync(summaryFile, JSON.stringify({ ...summary, entriesSha256: createHash('sha256').update(oldStyle).digest('hex') }));
  const three = await newStore(t, {}, dir);
  const older = await snapAndCheck(t, three, tree, 'agt_left_out');
  t.equal(older.stats.reusedDirs, 0, 'entries without directory keys: every directory listed');
  t.equal(older.stats.reusedFiles, 4, 'their files still taken unread');
});

t.test('captures beyond the threads wait their turn, each of its own tree', async (t) => {
  const store = await newStore(t);
  const trees = Array.from({ length: 5 }, (_, i) => path.join(work, `many-${i}`));
  for (const [i, tree] of trees.entries()) fill(tree, 20, `tree${i}`);
  const all = await Promise.all(trees.map((tree, i) => snapAndCheck(t, store, tree, `agt_many${i}`)));
  t.equal(new Set(all.map((s) => s.id)).size, 5, 'five snapshots');
  t.same(
    all.map((s) => s.stats.files),
    [20, 20, 20, 20, 20],
  );
});

t.test('a closed store refuses a capture', async (t) => {
  const store = await newStore(t);
  await store.close();
  const tree = path.join(work, 'closed');
  fill(tree, 1, 'c');
  const dir = await open(tree, DIR_FLAGS);
  t.teardown(() => dir.close());
  await t.rejects(store.create({ rootFd: dir.fd, ownUid: 0, agent: { id: 'agt_c', name: 'c', cwd: 'c' } }), /closed/);
});

t.test('a store closed while a capture runs: the capture fails, nothing is listed, nothing is left in tmp/', async (t) => {
  const dir = path.join(work, 'store-cut');
  const store = await newStore(t, {}, dir);
  const tree = path.join(work, 'cut');
  fill(tree, 3_000, 'cut');
  const root = await open(tree, DIR_FLAGS);
  t.teardown(() => root.close());
  const capture = store.create({ rootFd: root.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_cut', name: 'cut', cwd: 'cut' } });
  // Its walk has begun once its pack is in tmp/ (written at the first file; the ~45 MB take the walk far longer): ended under it.
  while (!readdirSync(path.join(dir, 'tmp')).some((n) => n.endsWith('.pack'))) await sleep(1);
  // Awaited from the start: the capture may fail before the close returns (which waits for the open's sweep).
  const failed = t.rejects(capture, /exited|closed/, 'the capture fails');
  await store.close();
  await failed;
  t.same(store.list(), [], 'nothing listed');
  t.same(readdirSync(path.join(dir, 'tmp')), [], 'no pack or index left in tmp/');
  t.same(
    readdirSync(path.join(dir, 'manifests')).filter((n) => n.endsWith('.json')),
    [],
    'no summary written',
  );
});

t.test('a capture thread that runs out of memory fails its capture alone (413, nothing kept); the next capture gets a new thread', async (t) => {
  const dir = path.join(work, 'store-oom');
  // A heap too small for the entries of 60,000 names (about 1.5 KiB each while walked): hard links of one file, so the tree is quick to make.
  const store = await newStore(t, { captureHeapMiB: 96 }, dir);
  const big = path.join(work, 'oom-big');
  mkdirSync(big);
  const one = path.join(big, 'one');
  writeFileSync(one, 'one\n');
  for (let d = 0; d < 6; d++) {
    const sub = path.join(big, `${'a-long-directory-name-'.repeat(11)}${d}`);
    mkdirSync(sub);
    for (let i = 0; i < 10_000; i++) linkSync(one, path.join(sub, `${'a-long-file-name-'.repeat(14)}${i}`));
  }
  const root = await open(big, DIR_FLAGS);
  t.teardown(() => root.close());
  const failed = await store.create({ rootFd: root.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_oom', name: 'oom', cwd: 'oom' } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(failed, { code: 'ABX_ERR_FILE_TOO_LARGE', message: /too large to snapshot.*96 MiB/ }, 'refused as too large, naming the limit');
  t.same(store.list(), [], 'nothing listed');
  t.same(readdirSync(path.join(dir, 'tmp')), [], 'nothing left in tmp/');
  const small = path.join(work, 'oom-small');
  fill(small, 5, 'after');
  const after = await snapAndCheck(t, store, small, 'agt_oom');
  t.equal(after.stats.files, 5, 'a capture after it runs on a new thread, whole');
});

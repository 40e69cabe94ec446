// A snapshot build, on one thread or split over several, makes the same tree as the original: the directories first, the files
// in contiguous parts (each on a thread of its own, opening its directories by name, past PATH_MAX too), then every directory's
// mode and mtime; a part that fails stops the others and the build fails naming it, with no descriptor or thread left.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { parseEntries } from '../../management-api/src/snapshots/entries-file.js';
import { materialize, splitLeaves } from '../../management-api/src/snapshots/materialize.js';
import { listPacks, packFile } from '../../management-api/src/snapshots/object-store.js';
import type { SnapshotEntry } from '../../management-api/src/snapshots/snapshot-manifest.js';
import type { MaterializeJob } from '../../management-api/src/snapshots/snapshot-protocol.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { flipChunkByte } from '../helpers/damaged-chunk.js';
import { makeDeepChain, tarOf } from '../helpers/deep-tree.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-split-build-'));
// coreutils: read-only directories made writable first, and paths past PATH_MAX removed.
t.teardown(() => {
  execFileSync('chmod', ['-R', 'u+w', work]);
  execFileSync('rm', ['-rf', work]);
});

const FILES_PER_DIR = 150;
const DIRS = 24;

/**
 * 3,600 small files in 24 directories, half of them read-only with their own mtimes; a chain of
 * 20 levels of 250-byte names (5,000 bytes of path) holding files at every level; files of
 * several modes, an empty one, one of 3 MiB (three chunks), links.
 */
function makeTree(root: string): void {
  for (let d = 0; d < DIRS; d++) {
    const dir = path.join(root, `pkg${d}`, d % 2 ? 'src' : 'lib');
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES_PER_DIR; f++) writeFileSync(path.join(dir, `f${f}.ts`), `export const v${d}_${f} = ${d * f};\n`);
    chmodSync(path.join(dir, 'f0.ts'), 0o755);
    chmodSync(path.join(dir, 'f1.ts'), 0o444);
    symlinkSync('f2.ts', path.join(dir, 'alias.ts'));
    utimesSync(dir, 1_600_000_000 + d, 1_600_000_000 + d);
    if (d % 2 === 0) chmodSync(dir, 0o555);
  }
  writeFileSync(path.join(root, 'empty'), '');
  writeFileSync(path.join(root, 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  makeDeepChain(root, 20, {
    inLevel: (i) => {
      for (let f = 0; f < 20; f++) writeFileSync(`deep${f}.txt`, `level ${i} file ${f}\n`);
    },
    sealedMode: 0o500,
  });
}

/**
 * Descriptors of this process open on the test's files (the tree being built, the store's packs).
 * Only those: a thread's own loop descriptors come and go with the store's idle capture threads.
 */
const openFds = (): number =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(work);
    } catch {
      return false; // closed since it was listed (readdir's own descriptor)
    }
  }).length;

const ws = path.join(work, 'ws');
const storeDir = path.join(work, 'store');
mkdirSync(ws);
makeTree(ws);
const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
t.before(() => store.open());
t.teardown(() => store.close());

async function snapshot(): Promise<{ job: (target: string, threads: number) => MaterializeJob; entries: SnapshotEntry[] }> {
  const dir = await open(ws, DIR_FLAGS);
  const made = await store
    .create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_split', name: 'split', cwd: 'split' } })
    .finally(() => dir.close());
  const entriesFile = path.join(storeDir, 'manifests', `${made.id}.entries`);
  const entriesSha256 = store.get(made.id).entriesSha256;
  return {
    entries: parseEntries(readFileSync(entriesFile), entriesSha256, entriesFile),
    job: (target, threads) => ({ op: 'materialize', storeDir, entriesFile, entriesSha256, target, threads }),
  };
}

t.test('the files are cut into contiguous parts of about equal weight, never more than the tree is worth', async (t) => {
  const { entries } = await snapshot();
  const leaves = entries.filter((e) => e.type !== 'dir');
  const parts = splitLeaves(entries, 3);
  t.equal(parts.length, 3, 'three threads asked, three parts (the tree is worth that many)');
  t.same(parts.flat(), leaves, 'the parts together are every file and link, in walk order');
  const counts = parts.map((p) => p.length);
  t.ok(Math.max(...counts) - Math.min(...counts) < leaves.length / 5, `about equal: ${counts.join(', ')}`);
  // Each file weighs 64 KiB and its size; a part at least a thousand small files' worth.
  const weight = leaves.reduce((sum, e) => sum + 64 * 1024 + (e.type === 'file' ? e.size : 0), 0);
  t.equal(splitLeaves(entries, 16).length, Math.floor(weight / (1000 * 64 * 1024)), 'no more parts than the tree is worth, however many threads');
  t.equal(splitLeaves(entries, 1).length, 1, 'one thread, one part');
  t.equal(splitLeaves(entries.slice(0, 500), 4).length, 1, 'a small tree is built on one thread');
});

t.test('a build split over three threads makes the same tree as the original: contents, modes, mtimes, links, long paths', async (t) => {
  const { job, entries } = await snapshot();
  const before = openFds();
  const split = path.join(work, 'split');
  const built = await materialize(job(split, 3));
  const files = entries.filter((e) => e.type === 'file').length;
  const bytes = entries.reduce((sum, e) => sum + (e.type === 'file' ? e.size : 0), 0);
  t.same(built, { files, dirs: entries.filter((e) => e.type === 'dir').length, symlinks: DIRS, bytes }, 'every entry built, counted once');
  t.ok(files > 3_900, `${files} files`);
  const original = tarOf(ws);
  t.ok(tarOf(split).equals(original), 'the split build packs to the same bytes as the original');
  const inOrder = path.join(work, 'in-order');
  await materialize(job(inOrder, 1));
  t.ok(tarOf(inOrder).equals(original), 'and so does the build on one thread');
  t.equal(openFds(), before, 'no descriptor left open');
});

t.test('a chunk that does not match its hash fails the build, on one thread or several: no agent is given other bytes', async (t) => {
  const { job } = await snapshot();
  // big.bin's chunk (three of the same 1 MiB of sevens, stored once): one byte of it flipped in its pack, then flipped back.
  const sevens = Buffer.alloc(1024 * 1024, 7);
  const pack = flipChunkByte(storeDir, sevens, 4242);
  t.teardown(() => flipChunkByte(storeDir, sevens, 4242));
  const before = openFds();
  for (const threads of [1, 3])
    await t.rejects(
      materialize(job(path.join(work, `bit-flipped-${threads}`), threads)),
      new RegExp(`snapshot chunk [0-9a-f]{64} read from pack ${pack} does not match its sha256: the store is damaged`),
      `${threads} thread(s): the damage is named`,
    );
  t.equal(openFds(), before, 'no descriptor left open');
});

t.test('a part that fails stops the build: the error names what failed, and nothing is left open', async (t) => {
  const { job } = await snapshot();
  // The chunks of the later files are cut off: the parts that hold them fail, the first one does not.
  const pack = listPacks(storeDir)[0]!;
  truncateSync(packFile(storeDir, pack), 4096);
  const before = openFds();
  await t.rejects(
    materialize(job(path.join(work, 'broken'), 3)),
    /shorter than its index says: the store is damaged|missing from the store/,
    'the damage is named',
  );
  t.equal(openFds(), before, 'no descriptor left open by any part');
});

// A snapshot's tree built in a new private directory (in a worker): its directories first, then its files and links (split over threads for a large tree on an idle store), then the directories' modes and mtimes.
import { closeSync, fchownSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { atFd, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { parseEntries } from './entries-file.js';
import { damaged, DirStack, dirMeta, splitPath } from './materialize-dirs.js';
import { buildPart, type LeafEntry } from './materialize-files.js';
import { type ChunkLocation, loadIndex } from './object-store.js';
import type { SnapshotEntry } from './snapshot-manifest.js';
import type { JobReply, MaterializeJob, MaterializePart, MaterializeResult, Owner } from './snapshot-protocol.js';

type DirEntry = Extract<SnapshotEntry, { type: 'dir' }>;

/**
 * What making one file costs, in bytes written: making an inode on ext4 here takes 30–180 µs of
 * kernel time, about what writing 64 KiB to the page cache does. Parts are cut by this weight.
 */
const FILE_COST_BYTES = 64 * 1024;
/**
 * The least weight worth a thread of its own (a thousand small files): starting a worker and
 * reading its share of the index take tens of milliseconds.
 */
const MIN_PART_WEIGHT = 1000 * FILE_COST_BYTES;

/**
 * Build the snapshot in `job.target`, made here (0700, so nothing else enters it while it is
 * built; a name already there is refused), in three passes: every directory (0700, so a read-only
 * one does not stop its children), then the files and links, then each directory's own mode and
 * mtime, deepest first. Each entry is made through its parent's descriptor, so a path of any length
 * comes back (a capture walks by descriptors too, and paths past PATH_MAX are an agent's to make).
 * Modes keep the permission bits only: setuid, setgid and sticky never come back. Only files,
 * directories and links are in a snapshot, so no device or FIFO is ever made.
 *
 * Why directories first: on ext4 without a journal (this machine's disk), making an inode skips,
 * one inode-table lookup each, every inode of the group freed in the last minute or so (the
 * kernel's recently_deleted(), most of the kernel time in a profile), so after a large delete
 * making files is slow, and measured it was about half as slow once all the directories existed
 * (21,000 files: 6.0–8.1 s against 10.0–17.5 s; 54,000 empty files: 2.3–9.8 s against 31–33 s).
 * On a journaled ext4 the order made no difference (±5 %). And it lets the files be split:
 * making a file is kernel time, so with `job.threads` > 1 and a tree worth it, contiguous runs of
 * the walk go to threads of their own (each opens few directories): on two cores a third less.
 */
export async function materialize(job: MaterializeJob): Promise<MaterializeResult> {
  const entries = parseEntries(readFileSync(job.entriesFile), job.entriesSha256, job.entriesFile);
  const first = entries[0];
  if (first?.type !== 'dir' || first.path !== '') throw damaged('it does not start with its root directory');
  mkdirSync(job.target, { mode: 0o700 });
  const root = openSync(job.target, DIR_FLAGS);
  try {
    if (job.owner) fchownSync(root, job.owner.uid, job.owner.gid);
    return await build(entries, splitLeaves(entries, job.threads), root, loadIndex(job.storeDir), job);
  } finally {
    closeSync(root);
  }
}

/** The three passes: the directories, the parts (on their threads, the first on this one), the directories' modes and mtimes. */
async function build(
  entries: SnapshotEntry[],
  parts: LeafEntry[][],
  root: number,
  index: Map<string, ChunkLocation>,
  job: MaterializeJob,
): Promise<MaterializeResult> {
  const dirs = makeDirs(entries, root, job.owner);
  const leaves = await buildParts(parts, root, index, job);
  setDirModes(entries, root);
  return { ...leaves, dirs };
}

/** Every directory below the root, 0700, in walk order; answers how many the tree has (the root counted). */
function makeDirs(entries: SnapshotEntry[], root: number, owner: Owner | undefined): number {
  let dirs = 1;
  const stack = new DirStack(root);
  try {
    eachDir(
      entries,
      stack,
      (at, e) => {
        dirs++;
        return makeDir(at, splitPath(e.path).name, owner);
      },
      false,
    );
  } finally {
    stack.close();
  }
  return dirs;
}

/** Each directory's own mode and mtime, deepest first (making its entries changed its mtime), the root last. */
function setDirModes(entries: SnapshotEntry[], root: number): void {
  const stack = new DirStack(root, dirMeta(entries[0] as DirEntry));
  try {
    eachDir(entries, stack, (at, e) => openDir(at, splitPath(e.path).name), true);
  } finally {
    stack.close();
  }
}

/** The files and links: every part but the first on a thread of its own, the first on this one meanwhile; their sums. */
async function buildParts(
  parts: LeafEntry[][],
  root: number,
  index: Map<string, ChunkLocation>,
  job: MaterializeJob,
): Promise<Omit<MaterializeResult, 'dirs'>> {
  const stop = new SharedArrayBuffer(4);
  const partJob = (part: LeafEntry[]): MaterializePart => ({
    op: 'materialize-part',
    storeDir: job.storeDir,
    rootFd: root,
    entries: part,
    chunks: chunksOf(part, index),
    ...(job.owner ? { owner: job.owner } : {}),
    stop,
    ...(job.written ? { written: job.written } : {}),
  });
  const others = parts.slice(1).map((part) => runPart(partJob(part)));
  let mine: MaterializeResult | Error;
  try {
    mine = buildPart(partJob(parts[0]!));
  } catch (err) {
    mine = err as Error;
  }
  // Every part has ended before anything is thrown: they use the root's descriptor, closed after.
  const settled = await Promise.allSettled(others);
  const outcomes = [mine, ...settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error)))];
  const failed = outcomes.filter((o): o is Error => o instanceof Error);
  // The part that failed first, not those it stopped.
  if (failed.length > 0) throw failed.find((e) => !STOPPED.test(e.message)) ?? failed[0]!;
  const sum = { files: 0, symlinks: 0, bytes: 0 };
  for (const o of outcomes as MaterializeResult[]) {
    sum.files += o.files;
    sum.symlinks += o.symlinks;
    sum.bytes += o.bytes;
  }
  return sum;
}

const STOPPED = /^another part of the build failed$/;

/**
 * Each directory below the root in walk order, entered through its parent: `dirFd` makes or opens
 * it and answers its descriptor. With `withMeta`, each gets its mode and mtime when left (deepest
 * first, the root last); the stack is left whole either way.
 */
function eachDir(entries: SnapshotEntry[], stack: DirStack, dirFd: (parentFd: number, e: DirEntry) => number, withMeta: boolean): void {
  for (const e of entries.slice(1)) {
    if (e.type !== 'dir') continue;
    const at = stack.enter(splitPath(e.path).parent, false);
    stack.push(e.path, dirFd(at, e), withMeta ? dirMeta(e) : undefined);
  }
  stack.finish();
}

function makeDir(parentFd: number, name: string, owner: Owner | undefined): number {
  mkdirSync(atFd(parentFd, name), { mode: 0o700 });
  const fd = openDir(parentFd, name);
  if (owner) fchownSync(fd, owner.uid, owner.gid);
  return fd;
}

const openDir = (parentFd: number, name: string): number => openSync(atFd(parentFd, name), DIR_FLAGS);

/** The files and links cut into at most `threads` contiguous runs of about equal weight; fewer when the tree is small. */
export function splitLeaves(entries: SnapshotEntry[], threads: number): LeafEntry[][] {
  const leaves = entries.filter((e): e is LeafEntry => e.type !== 'dir');
  const weight = (e: LeafEntry) => FILE_COST_BYTES + (e.type === 'file' ? e.size : 0);
  const total = leaves.reduce((sum, e) => sum + weight(e), 0);
  const count = Math.max(1, Math.min(threads, Math.floor(total / MIN_PART_WEIGHT)));
  if (count === 1) return [leaves];
  const parts: LeafEntry[][] = [];
  let part: LeafEntry[] = [];
  let done = 0;
  for (const e of leaves) {
    part.push(e);
    done += weight(e);
    if (parts.length < count - 1 && done >= (total * (parts.length + 1)) / count) {
      parts.push(part);
      part = [];
    }
  }
  parts.push(part);
  return parts.filter((p) => p.length > 0);
}

/** Where each chunk of `part` is: only what its thread needs is copied to it. */
function chunksOf(part: LeafEntry[], index: Map<string, ChunkLocation>): Map<string, ChunkLocation> {
  const chunks = new Map<string, ChunkLocation>();
  for (const e of part) {
    if (e.type !== 'file') continue;
    for (const h of e.chunks) {
      const loc = index.get(h);
      if (loc) chunks.set(h, loc);
    }
  }
  return chunks;
}

/**
 * One part on a worker thread of its own, settled once the thread has exited (its loop's
 * descriptors closed too); its failure carries its errno code (a full disk is told apart).
 */
function runPart(part: MaterializePart): Promise<MaterializeResult> {
  // Beside this module: .js when built, .ts when the tests run the sources (the worker inherits their loader).
  const worker = new Worker(new URL(`./snapshot-worker${path.extname(import.meta.url)}`, import.meta.url), { workerData: part });
  return new Promise((resolve, reject) => {
    let reply: JobReply | undefined;
    let crashed: Error | undefined;
    worker.once('message', (r: JobReply) => {
      reply = r;
    });
    worker.once('error', (err) => {
      crashed = err;
      Atomics.store(new Int32Array(part.stop), 0, 1);
    });
    worker.once('exit', (code) => {
      if (reply?.ok) resolve(reply.result as MaterializeResult);
      else if (reply) reject(Object.assign(new Error(reply.message), reply.code ? { code: reply.code } : {}));
      else reject(crashed ?? new Error(`a snapshot build thread exited (code ${code}) without an answer`));
    });
  });
}

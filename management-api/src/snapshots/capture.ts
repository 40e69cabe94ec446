// A workspace walked into snapshot entries (in the worker, with synchronous calls): descriptor by descriptor, links kept as links, each file hashed in chunks and stored once; a file unchanged since the agent's previous snapshot is not read again.
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  writeFileSync,
  type BigIntStats,
  type Dirent,
  type Stats,
} from 'node:fs';
import { atFd, DIR_FLAGS, openFileAtSync } from '../workspace-files/dir-fd.js';
import type { CaptureCache, FileEntry, KnownChunks, PreviousFiles } from './capture-cache.js';
import { chunkSize, sha256Hex } from './entries-file.js';
import { PackWriter } from './object-store.js';
import { CHUNK_BYTES, type SnapshotEntry } from './snapshot-manifest.js';
import type { CaptureJob, CaptureResult } from './snapshot-protocol.js';

/** A file still changing after this many reads is kept as last read, and named in the summary. */
const READS = 3;
const MAX_CHANGED_PATHS = 100;

/**
 * A file whose ctime is this close to when it was read may be written again within the same tick
 * of the kernel's file clock (a few milliseconds) with the same size and times: its key is left
 * empty so the next snapshot reads it again instead of trusting an unchanged key (git's "racily
 * clean" case).
 */
export const RACY_MS = 100;

/** What identifies a file's content without reading it: the same inode, size, mtime and ctime (ctime cannot be set back by its owner). Doubles of milliseconds: finer than the kernel's file clock. */
export const statKey = (st: Stats): string => stampOf(st).join(':');

/** statKey's numbers. */
const stampOf = (st: Stats): number[] => [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];

/** A key's numbers, in statKey's order; null for an empty key (read the file again). */
const parseKey = (key: string): number[] | null => (key === '' ? null : key.split(':').map(Number));

/** The numbers of statKey(st) are `stamp`'s. */
const sameStamp = (st: Stats, stamp: number[]): boolean =>
  st.dev === stamp[0] && st.ino === stamp[1] && st.size === stamp[2] && st.mtimeMs === stamp[3] && st.ctimeMs === stamp[4];

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

class Capture {
  /** The entries file's lines, in walk order. */
  readonly lines: string[] = [];
  /** The file entries of this snapshot, kept for the agent's next capture. */
  readonly fileEntries: PreviousFiles = new Map();
  readonly seen = new Set<string>();
  readonly changedPaths: string[] = [];
  readonly buf = Buffer.allocUnsafe(CHUNK_BYTES);
  readonly known: KnownChunks;
  readonly objects: PackWriter;
  readonly previous: PreviousFiles;
  files = 0;
  dirs = 0;
  symlinks = 0;
  skipped = 0;
  bytes = 0;
  storedBytes = 0;
  reusedFiles = 0;
  changed = 0;

  constructor(
    readonly job: CaptureJob,
    cache: CaptureCache,
  ) {
    this.known = cache.knownChunks(job.storeDir);
    this.objects = new PackWriter(job.storeDir, job.pack, this.known);
    this.previous = job.previous ? cache.previousFiles(job.previous.entriesFile, job.previous.entriesSha256) : new Map();
  }

  push(entry: SnapshotEntry, line = JSON.stringify(entry), stamp?: number[] | null): void {
    this.lines.push(line);
    if (entry.type === 'file') this.fileEntries.set(entry.path, { entry, line, ...(stamp !== undefined ? { stamp } : {}) });
  }

  /** Count each distinct chunk once, by hash. */
  refer(hash: string, size: number): void {
    if (this.seen.has(hash)) return;
    this.seen.add(hash);
    this.storedBytes += size;
  }

  /**
   * Walk the directory open as `dirFd`; `dirPath` is where it was when the walk entered it, used
   * only to ask whether a file is the one the previous snapshot read (see {@link unchanged}).
   */
  walk(dirFd: number, dirPath: string, prefix: string): void {
    for (const d of readdirSync(atFd(dirFd, '.'), { withFileTypes: true }).sort(byName)) {
      const rel = `${prefix}${d.name}`;
      if (d.isFile() && this.unchanged(`${dirPath}/${d.name}`, rel)) continue;
      this.entry(dirFd, dirPath, d.name, rel);
    }
  }

  /**
   * The fast path of a second snapshot: one lstat by path, no descriptor. The path may lead
   * elsewhere if the agent swaps a directory for a link meanwhile, so all it may decide is that
   * the file there is the very inode the previous snapshot read, with the same size and times;
   * then that snapshot's record of it is reused (content the walk read from this workspace
   * before). Anything else goes the descriptor way ({@link entry}).
   */
  unchanged(absPath: string, rel: string): boolean {
    const prev = this.previous.get(rel);
    if (!prev) return false;
    prev.stamp ??= parseKey(prev.entry.key);
    if (!prev.stamp) return false;
    let st: Stats | undefined;
    try {
      st = lstatSync(absPath, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (!st?.isFile() || !sameStamp(st, prev.stamp)) return false;
    this.reusedFiles++;
    this.files++;
    this.bytes += prev.entry.size;
    for (const [i, h] of prev.entry.chunks.entries()) this.refer(h, chunkSize(prev.entry.size, i, CHUNK_BYTES));
    this.push(prev.entry, prev.line, prev.stamp);
    return true;
  }

  /** One name of the directory open as `dirFd`, looked at through the descriptor. */
  entry(dirFd: number, dirPath: string, name: string, rel: string): void {
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(atFd(dirFd, name), { bigint: true, throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st) return;
    const mtimeNs = String(st.mtimeNs);
    if (st.isDirectory()) {
      let sub: number;
      try {
        // O_NOFOLLOW: a directory swapped for a link since the lstat is refused here, not followed.
        sub = openSync(atFd(dirFd, name), DIR_FLAGS);
      } catch {
        this.skipped++;
        return;
      }
      try {
        this.dirs++;
        this.push({ type: 'dir', path: rel, mode: Number(st.mode) & 0o777, mtimeNs });
        this.walk(sub, `${dirPath}/${name}`, `${rel}/`);
      } finally {
        closeSync(sub);
      }
    } else if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkSync(atFd(dirFd, name));
      } catch {
        return;
      }
      this.symlinks++;
      this.push({ type: 'symlink', path: rel, target, mtimeNs });
    } else if (st.isFile() && !(st.nlink > 1n && Number(st.uid) !== this.job.ownUid)) {
      const read = this.file(dirFd, name, rel, st);
      if (!read) {
        this.skipped++;
        return;
      }
      this.files++;
      this.bytes += read.entry.size;
      this.push(read.entry, undefined, read.stamp);
    } else {
      // FIFOs, sockets, devices, and files of other owners linked in: never captured.
      this.skipped++;
    }
  }

  /** A file read and hashed through a descriptor; its key is left empty when it kept changing or was changed just before it was read ({@link RACY_MS}). */
  file(dirFd: number, name: string, rel: string, st: BigIntStats): { entry: FileEntry; stamp: number[] | null } | undefined {
    const fd = openFileAtSync(dirFd, name);
    if (fd === undefined) return undefined;
    try {
      let last: FileEntry | undefined;
      for (let read = 1; read <= READS; read++) {
        const startedAt = Date.now();
        const before = fstatSync(fd);
        // The same inode the walk listed, still a regular file: a swap in between is left out.
        if (!before.isFile() || before.ino !== Number(st.ino)) return undefined;
        const chunks = this.read(fd);
        const after = fstatSync(fd);
        const size = chunks.reduce((n, c) => n + c.size, 0);
        const stable = statKey(before) === statKey(after) && size === after.size;
        last = {
          type: 'file',
          path: rel,
          mode: after.mode & 0o777,
          mtimeNs: String(fstatSync(fd, { bigint: true }).mtimeNs),
          size,
          chunks: chunks.map((c) => c.hash),
          key: stable && after.ctimeMs < startedAt - this.job.racyMs ? statKey(after) : '',
        };
        if (stable) {
          for (const c of chunks) this.refer(c.hash, c.size);
          return { entry: last, stamp: last.key === '' ? null : stampOf(after) };
        }
      }
      // Still changing: kept as last read, and said so. Its key is empty, so the next snapshot reads it again.
      this.changed++;
      if (this.changedPaths.length < MAX_CHANGED_PATHS) this.changedPaths.push(rel);
      for (const [i, h] of last!.chunks.entries()) this.refer(h, chunkSize(last!.size, i, CHUNK_BYTES));
      return { entry: last!, stamp: null };
    } finally {
      closeSync(fd);
    }
  }

  /** Read the file from its start, chunk by chunk, storing each chunk not stored yet. */
  read(fd: number): Array<{ hash: string; size: number }> {
    const chunks: Array<{ hash: string; size: number }> = [];
    let position = 0;
    for (;;) {
      let n = 0;
      while (n < CHUNK_BYTES) {
        const got = readSync(fd, this.buf, n, CHUNK_BYTES - n, position + n);
        if (got === 0) break;
        n += got;
      }
      if (n === 0) break;
      const data = this.buf.subarray(0, n);
      const hash = createHash('sha256').update(data).digest('hex');
      this.objects.put(hash, data);
      chunks.push({ hash, size: n });
      position += n;
      if (n < CHUNK_BYTES) break;
    }
    return chunks;
  }
}

/** Capture the directory open as `job.rootFd`; what the cache keeps serves this worker's next captures. */
export function capture(job: CaptureJob, cache: CaptureCache): CaptureResult {
  const c = new Capture(job, cache);
  let packed: boolean;
  try {
    const root = fstatSync(job.rootFd, { bigint: true });
    c.push({ type: 'dir', path: '', mode: Number(root.mode) & 0o777, mtimeNs: String(root.mtimeNs) });
    // Where the directory is now, for the fast path's lstat only; the walk itself goes by descriptors.
    c.walk(job.rootFd, readlinkSync(`/proc/self/fd/${job.rootFd}`), '');
  } finally {
    packed = c.objects.close(job.durable);
  }
  // Its index beside it in tmp/: the service moves both into packs/, the index last.
  if (packed) {
    writeNewFile(c.objects.tmpFile.replace(/\.pack$/, '.idx'), JSON.stringify(c.objects.index), job.durable);
    // Known from now on, so the next capture need not read the index back; dropped at its start if the service did not commit the pack.
    c.known.add(job.pack, Object.keys(c.objects.index));
  }
  const text = Buffer.from(`${c.lines.join('\n')}\n`);
  const entriesSha256 = sha256Hex(text);
  cache.keep(entriesSha256, c.fileEntries);
  return {
    packed,
    // A copy of its own: a small Buffer is a view of Node's shared pool, which must not be transferred.
    entriesText: new Uint8Array(text),
    entriesSha256,
    changedPaths: c.changedPaths,
    stats: {
      files: c.files,
      dirs: c.dirs,
      symlinks: c.symlinks,
      skipped: c.skipped,
      bytes: c.bytes,
      chunks: c.seen.size,
      storedBytes: c.storedBytes,
      addedChunks: c.objects.addedChunks,
      addedBytes: c.objects.addedBytes,
      reusedFiles: c.reusedFiles,
      changed: c.changed,
    },
  };
}

function writeNewFile(file: string, text: string, durable: boolean): void {
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeFileSync(fd, text);
    if (durable) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

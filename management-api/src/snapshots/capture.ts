// A workspace walked into snapshot entries (in the worker, with synchronous calls): descriptor by descriptor, links kept as links, each file hashed in chunks and stored once.
import { createHash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  writeFileSync,
  type BigIntStats,
} from 'node:fs';
import { atFd, DIR_FLAGS, openFileAtSync } from '../workspace-files/dir-fd.js';
import { chunkSize, parseEntries, serializeEntries } from './entries-file.js';
import { PackWriter } from './object-store.js';
import { CHUNK_BYTES, type SnapshotEntry } from './snapshot-manifest.js';
import type { CaptureJob, CaptureResult } from './snapshot-protocol.js';

/** A file still changing after this many reads is kept as last read, and named in the summary. */
const READS = 3;
const MAX_CHANGED_PATHS = 100;

/** What identifies a file's content without reading it: the same inode, size, mtime and ctime (ctime cannot be set back by its owner). */
export const statKey = (st: BigIntStats): string => `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;

type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;

class Capture {
  readonly entries: SnapshotEntry[] = [];
  readonly seen = new Set<string>();
  readonly changedPaths: string[] = [];
  readonly buf = Buffer.allocUnsafe(CHUNK_BYTES);
  readonly objects: PackWriter;
  readonly previous: Map<string, FileEntry>;
  files = 0;
  dirs = 0;
  symlinks = 0;
  skipped = 0;
  bytes = 0;
  storedBytes = 0;
  reusedFiles = 0;
  changed = 0;

  constructor(readonly job: CaptureJob) {
    this.objects = new PackWriter(job.storeDir, job.pack);
    this.previous = new Map();
    if (job.previous) {
      const { entriesFile, entriesSha256 } = job.previous;
      for (const e of parseEntries(readFileSync(entriesFile), entriesSha256, entriesFile)) if (e.type === 'file') this.previous.set(e.path, e);
    }
  }

  /** Count each distinct chunk once, by hash. */
  refer(hash: string, size: number): void {
    if (this.seen.has(hash)) return;
    this.seen.add(hash);
    this.storedBytes += size;
  }

  walk(dirFd: number, prefix: string): void {
    for (const name of readdirSync(atFd(dirFd, '.')).sort()) {
      const rel = `${prefix}${name}`;
      let st: BigIntStats | undefined;
      try {
        st = lstatSync(atFd(dirFd, name), { bigint: true, throwIfNoEntry: false });
      } catch {
        st = undefined;
      }
      if (!st) continue;
      const mtimeNs = String(st.mtimeNs);
      if (st.isDirectory()) {
        let sub: number;
        try {
          // O_NOFOLLOW: a directory swapped for a link since the lstat is refused here, not followed.
          sub = openSync(atFd(dirFd, name), DIR_FLAGS);
        } catch {
          this.skipped++;
          continue;
        }
        try {
          this.dirs++;
          this.entries.push({ type: 'dir', path: rel, mode: Number(st.mode) & 0o777, mtimeNs });
          this.walk(sub, `${rel}/`);
        } finally {
          closeSync(sub);
        }
      } else if (st.isSymbolicLink()) {
        let target: string;
        try {
          target = readlinkSync(atFd(dirFd, name));
        } catch {
          continue;
        }
        this.symlinks++;
        this.entries.push({ type: 'symlink', path: rel, target, mtimeNs });
      } else if (st.isFile() && !(st.nlink > 1n && Number(st.uid) !== this.job.ownUid)) {
        const entry = this.file(dirFd, name, rel, st);
        if (!entry) {
          this.skipped++;
          continue;
        }
        this.files++;
        this.bytes += entry.size;
        this.entries.push(entry);
      } else {
        // FIFOs, sockets, devices, and files of other owners linked in: never captured.
        this.skipped++;
      }
    }
  }

  /** A file's entry: reused from the previous snapshot when its stat key is unchanged, else read and hashed. */
  file(dirFd: number, name: string, rel: string, st: BigIntStats): FileEntry | undefined {
    const prev = this.previous.get(rel);
    if (prev && prev.key === statKey(st)) {
      this.reusedFiles++;
      for (const [i, h] of prev.chunks.entries()) this.refer(h, chunkSize(prev.size, i, CHUNK_BYTES));
      return prev;
    }
    const fd = openFileAtSync(dirFd, name);
    if (fd === undefined) return undefined;
    try {
      let last: FileEntry | undefined;
      for (let read = 1; read <= READS; read++) {
        const before = fstatSync(fd, { bigint: true });
        // The same inode the walk listed, still a regular file: a swap in between is left out.
        if (!before.isFile() || before.ino !== st.ino) return undefined;
        const chunks = this.read(fd);
        const after = fstatSync(fd, { bigint: true });
        const size = chunks.reduce((n, c) => n + c.size, 0);
        last = {
          type: 'file',
          path: rel,
          mode: Number(after.mode) & 0o777,
          mtimeNs: String(after.mtimeNs),
          size,
          chunks: chunks.map((c) => c.hash),
          key: statKey(after),
        };
        if (statKey(before) === statKey(after) && BigInt(size) === after.size) {
          for (const c of chunks) this.refer(c.hash, c.size);
          return last;
        }
      }
      // Still changing: kept as last read, and said so. Its key is emptied so the next snapshot reads it again.
      this.changed++;
      if (this.changedPaths.length < MAX_CHANGED_PATHS) this.changedPaths.push(rel);
      for (const [i, h] of last!.chunks.entries()) this.refer(h, chunkSize(last!.size, i, CHUNK_BYTES));
      return { ...last!, key: '' };
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

/** Capture the directory open as `job.rootFd`. */
export function capture(job: CaptureJob): CaptureResult {
  const c = new Capture(job);
  let packed: boolean;
  try {
    const root = fstatSync(job.rootFd, { bigint: true });
    c.entries.push({ type: 'dir', path: '', mode: Number(root.mode) & 0o777, mtimeNs: String(root.mtimeNs) });
    c.walk(job.rootFd, '');
  } finally {
    packed = c.objects.close(job.durable);
  }
  // Its index beside it in tmp/: the service moves both into packs/, the index last.
  if (packed) {
    const fd = openSync(c.objects.tmpFile.replace(/\.pack$/, '.idx'), 'wx', 0o600);
    try {
      writeFileSync(fd, JSON.stringify(c.objects.index));
      if (job.durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
  return {
    packed,
    // A copy of its own: a small Buffer is a view of Node's shared pool, which must not be transferred.
    entriesText: new Uint8Array(serializeEntries(c.entries)),
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

// A workspace walked into snapshot entries (in the worker, with synchronous calls): descriptor by descriptor, links kept as links, each file hashed in chunks and stored once; a file unchanged since the agent's previous snapshot is not read again.
import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  writeFileSync,
  type BigIntStats,
  type Dirent,
  type Stats,
} from 'node:fs';
import { SUBVOLUME_ROOT_INO } from '../sandbox/subvolumes.js';
import { HoleAllowance } from '../workspace-files/hole-allowance.js';
import { MAX_TREE_DEPTH, depthOf, treeTooDeep } from '../workspace-files/tree-depth.js';
import { atFd, DIR_FLAGS, openFileAtSync } from '../workspace-files/dir-fd.js';
import { fsPath, readdirEntriesSync, readlinkNameSync } from '../fs-names.js';
import { tooManyEntries } from './capture-entries-cap.js';
import type { CaptureCache, FileEntry, KeptFile, KeptName, KeptSnapshot, KnownChunks } from './capture-cache.js';
import { cloneHoldsSuspects, type Suspect } from './clone-check.js';
import { closedToBox, openClosedDirSync, openClosedFileSync } from './closed-entries.js';
import { chunkSize, encodeLines, sha256Hex } from './entries-file.js';
import { PackWriter } from './object-store.js';
import { CHUNK_BYTES, dirBlockBytes, fileBlockBytes, holeBytesOf, linkBlockBytes, type SnapshotEntry, zeroChunkHash } from './snapshot-manifest.js';
import type { CaptureJob, CaptureResult } from './snapshot-protocol.js';
import { type AheadPlan, parseKey, type StatAhead } from './stat-ahead.js';

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

/** Code-unit order of names, the default sort's. */
const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** statKey's numbers. */
const stampOf = (st: Stats): number[] => [st.dev, st.ino, st.size, st.mtimeMs, st.ctimeMs];

/** The numbers of statKey(st) are `stamp`'s. */
const sameStamp = (st: Stats, stamp: number[]): boolean =>
  st.dev === stamp[0] && st.ino === stamp[1] && st.size === stamp[2] && st.mtimeMs === stamp[3] && st.ctimeMs === stamp[4];

class Capture {
  /** The entries file's lines, in walk order. */
  readonly lines: string[] = [];
  /** This snapshot as the thread keeps it, for the agent's next capture. */
  readonly kept: KeptSnapshot;
  readonly previous: KeptSnapshot;
  readonly seen = new Set<string>();
  readonly changedPaths: string[] = [];
  readonly buf = Buffer.allocUnsafe(CHUNK_BYTES);
  readonly known: KnownChunks;
  readonly objects: PackWriter;
  /** Names the walk has met so far, listed or the previous snapshot's: at most `job.maxEntries`. */
  entries = 0;
  files = 0;
  dirs = 0;
  symlinks = 0;
  skipped = 0;
  bytes = 0;
  holeBytes = 0;
  /** What a copying build of this snapshot allocates (snapshot-manifest.ts, blockBytes*). */
  buildBytes = 0;
  storedBytes = 0;
  reusedFiles = 0;
  aheadFiles = 0;
  reusedDirs = 0;
  changed = 0;
  /**
   * Entries the clone taken before the walk (`job.clonedAtMs`) may hold otherwise than this
   * snapshot: changed since (ctime) or within RACY_MS before, a setuid, setgid or sticky bit, an
   * owner other than the root's, a subvolume nested below the root (an empty placeholder in a
   * clone). With none, the clone is the tree a build of these entries makes.
   */
  unfitForClone = 0;
  readonly suspects: Suspect[] = [];
  /** Each directory's mode and mtime as its entry records them, for a suspect directory. */
  readonly dirMeta = new Map<string, { mode: number; mtimeNs: string }>();
  /** The root directory's owner: a clone keeps owners, a build gives every entry one. */
  owner = { uid: -1, gid: -1 };
  /** The holes of sparse files this capture reads through, bounded (hole-allowance.ts). */
  readonly holes: HoleAllowance;
  /**
   * Files of several links this capture read, by device and inode, with what the read found: each
   * other name of one is the same bytes while its stamp is the same, so it is not read again. A
   * file linked ten thousand times takes its agent's disk budget once, and is read once.
   */
  readonly linked = new Map<string, FileEntry>();
  /** The helper thread's share of the previous snapshot's lstats, when it has one (stat-ahead.ts). */
  ahead: AheadPlan | undefined;

  constructor(
    readonly job: CaptureJob,
    cache: CaptureCache,
    /** Where the workspace is now, for the fast path's lstat only; the walk itself goes by descriptors. */
    readonly root: string,
  ) {
    this.known = cache.knownChunks(job.storeDir);
    this.objects = new PackWriter(job.storeDir, job.pack, this.known);
    this.kept = { root, dirs: new Map(), files: 0 };
    this.holes = new HoleAllowance(job.maxHoleBytes, 'a snapshot');
    this.previous = job.previous ? cache.previous(job.previous.entriesFile, job.previous.entriesSha256, root) : { root, dirs: new Map(), files: 0 };
  }

  /**
   * An entry as the clone must hold it: one with a special bit or another owner is counted (see
   * {@link unfitForClone}); one changed since, or within RACY_MS before, the clone was taken
   * (ctime, in ms) becomes a suspect, compared with the clone after the walk (clone-check.ts).
   */
  checkClone(mode: number, uid: number, gid: number, ctimeMs: number, suspect: () => Suspect): void {
    if (this.job.clonedAtMs === undefined) return;
    if ((mode & 0o7000) !== 0 || uid !== this.owner.uid || gid !== this.owner.gid) this.unfitForClone++;
    else if (ctimeMs >= this.job.clonedAtMs - this.job.racyMs) this.suspects.push(suspect());
  }

  /** An entry listed but not captured (gone before it was looked at): the clone may hold it. */
  lost(): void {
    if (this.job.clonedAtMs !== undefined) this.unfitForClone++;
  }

  /** Count each distinct chunk once, by hash. */
  refer(hash: string, size: number): void {
    if (this.seen.has(hash)) return;
    this.seen.add(hash);
    this.storedBytes += size;
  }

  /**
   * Walk the directory open as `dirFd`, at `rel` in the workspace; `dirPath` is where it was when
   * the walk entered it, used only to ask whether a file is the one the previous snapshot read
   * (see {@link unchanged}). Its names are the previous snapshot's when the directory's stamp is
   * the same, else read (and sorted: code-unit order, the default sort's).
   */
  walk(dirFd: number, dirPath: string, rel: string, meta: { mode: number; mtimeNs: string }): void {
    const listedAt = Date.now();
    // The inode listed is the one open, whatever the path leads to now.
    const st = fstatSync(dirFd, { bigint: true });
    const stamp = `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
    // A directory changed just before it was listed may change again within the same tick of the file clock, its stamp unmoved: listed again next time.
    const racy = Number(st.ctimeNs / 1_000_000n) >= listedAt - this.job.racyMs;
    // Its entry before what it holds; its key counts the names listed, so a capture that reads it back from disk knows whether the entries hold them all.
    const line = (names: number) =>
      this.lines.push(JSON.stringify({ type: 'dir', path: rel, ...meta, key: racy ? '' : `${stamp}:${names}` } satisfies SnapshotEntry));
    const before = this.previous.dirs.get(rel);
    const names: KeptName[] = [];
    if (before && before.stamp === stamp) {
      this.count(before.names.length, rel);
      this.reusedDirs++;
      line(before.names.length);
      // The same names, each the same inode: one captured as a file is a regular file still.
      for (const n of before.names) names.push(this.name(dirFd, n, n.file !== undefined, true));
    } else {
      const prefix = rel === '' ? '' : `${rel}/`;
      const known = before ? new Map(before.names.map((n) => [n.name, n])) : undefined;
      // Names as bytes where they are not UTF-8 (fs-names.ts): each is read and remade as it is.
      // Read only up to what the cap leaves: one directory of millions of names is never held whole.
      const listed = readdirEntriesSync(atFd(dirFd, '.'), this.job.maxEntries - this.entries);
      if (!listed) throw tooManyEntries(this.job.maxEntries, rel);
      this.count(listed.length, rel);
      listed.sort(byName);
      line(listed.length);
      for (const d of listed) {
        const name = d.name;
        names.push(this.name(dirFd, known?.get(name) ?? { name, rel: `${prefix}${name}`, abs: `${dirPath}/${name}` }, d.isFile(), false));
      }
    }
    this.buildBytes += dirBlockBytes(names.map((n) => n.name));
    this.kept.dirs.set(rel, { stamp: racy ? '' : stamp, names });
    // After its names: a name added, removed or renamed since the clone moved the directory's ctime.
    if (this.job.clonedAtMs !== undefined) {
      const now = fstatSync(dirFd);
      const meta = this.dirMeta.get(rel)!;
      this.checkClone(now.mode, now.uid, now.gid, now.ctimeMs, () => ({ type: 'dir', rel, ...meta, names: names.map((n) => n.name) }));
      // A subvolume below the root is an empty placeholder in the clone (btrfs snapshots do not nest).
      if (rel !== '' && now.ino === SUBVOLUME_ROOT_INO) this.unfitForClone++;
    }
  }

  /** Count `names` more entries met at `rel`; past `job.maxEntries` the capture fails (TOO_MANY_ENTRIES). */
  count(names: number, rel: string): void {
    this.entries += names;
    if (this.entries > this.job.maxEntries) throw tooManyEntries(this.job.maxEntries, rel);
  }

  /**
   * One name of the directory open as `dirFd` (`regular`: listed as a regular file; `sameNames`:
   * the directory's stamp is the previous snapshot's): that snapshot's record when its file is
   * unchanged, else looked at through the descriptor.
   */
  name(dirFd: number, n: KeptName, regular: boolean, sameNames: boolean): KeptName {
    if (n.file && this.unchanged(n.abs, n.file, sameNames)) return n;
    const file = this.entry(dirFd, n, regular);
    if (!file && !n.file) return n;
    return { name: n.name, rel: n.rel, abs: n.abs, ...(file ? { file } : {}) };
  }

  /**
   * The fast path of a second snapshot: one lstat by path, no descriptor. The path may lead
   * elsewhere if the agent swaps a directory for a link meanwhile, so all it may decide is that
   * the file there is the very inode the previous snapshot read, with the same size and times;
   * then that snapshot's record of it is reused (content the walk read from this workspace
   * before). Anything else goes the descriptor way ({@link entry}). In a directory whose names are
   * the previous snapshot's (`sameNames`), the helper thread's lstat of the same path, made since
   * the capture began, answers as this one would (stat-ahead.ts).
   */
  unchanged(absPath: string, prev: KeptFile, sameNames: boolean): boolean {
    prev.stamp ??= parseKey(prev.entry.key);
    if (!prev.stamp) return false;
    // Claimed whether used or not: the helper need not look at a file the walk looks at itself.
    const helped = this.ahead?.take(prev);
    const { entry } = prev;
    // Nothing made per file for the clone check where there is no clone: a second snapshot's every allocation is paid for 54,000 files.
    const cloned = this.job.clonedAtMs !== undefined;
    if (sameNames && helped !== undefined) {
      if (helped === 'differs') return false;
      this.aheadFiles++;
      if (cloned) this.checkClone(helped.mode, helped.uid, helped.gid, prev.stamp[4]!, () => fileSuspect(entry));
    } else {
      let st: Stats | undefined;
      try {
        st = lstatSync(fsPath(absPath), { throwIfNoEntry: false });
      } catch {
        return false;
      }
      if (!st?.isFile() || !sameStamp(st, prev.stamp)) return false;
      if (cloned) this.checkClone(st.mode, st.uid, st.gid, st.ctimeMs, () => fileSuspect(entry));
    }
    this.reusedFiles++;
    this.files++;
    this.bytes += entry.size;
    this.holeBytes += holeBytesOf(entry.chunks, entry.size);
    this.buildBytes += fileBlockBytes(entry);
    this.referChunks(entry);
    this.lines.push(prev.line);
    return true;
  }

  /**
   * One name of the directory open as `dirFd`, looked at through the descriptor; its record when it
   * is a file captured. A name listed as a regular file is opened straight away (no lstat: a
   * fifth of a first snapshot's calls) and checked on its descriptor; anything else it turns out
   * to be by then is looked at the lstat way.
   */
  entry(dirFd: number, n: KeptName, regular: boolean): KeptFile | undefined {
    if (regular) {
      const read = this.file(dirFd, n.name, n.rel);
      if (read === 'left out') {
        this.skipped++;
        return undefined;
      }
      if (read !== 'not a file') return this.captured(read);
    }
    let st: BigIntStats | undefined;
    try {
      st = lstatSync(atFd(dirFd, n.name), { bigint: true, throwIfNoEntry: false });
    } catch {
      st = undefined;
    }
    if (!st) {
      this.lost();
      return undefined;
    }
    const mtimeNs = String(st.mtimeNs);
    if (st.isDirectory()) {
      // Each level holds a descriptor of the process's and a frame of the thread's stack.
      if (depthOf(n.rel) > MAX_TREE_DEPTH) throw treeTooDeep(n.rel, 'to snapshot');
      let sub: number;
      let reseal: (() => void) | undefined;
      try {
        if (closedToBox(st, 0o500)) {
          // The agent's own chmod 000 (or 0600) on a box that is not root: listed and entered all the same.
          const closed = openClosedDirSync(dirFd, n.name);
          if (!closed) throw new Error('not opened');
          ({ fd: sub, reseal } = closed);
        }
        // O_NOFOLLOW: a directory swapped for a link since the lstat is refused here, not followed.
        else sub = openSync(atFd(dirFd, n.name), DIR_FLAGS);
      } catch {
        this.skipped++;
        return undefined;
      }
      try {
        this.dirs++;
        const meta = { mode: Number(st.mode) & 0o777, mtimeNs };
        if (this.job.clonedAtMs !== undefined) this.dirMeta.set(n.rel, meta);
        this.walk(sub, n.abs, n.rel, meta);
      } finally {
        try {
          reseal?.();
        } finally {
          closeSync(sub);
        }
      }
    } else if (st.isSymbolicLink()) {
      let target: string;
      try {
        target = readlinkNameSync(atFd(dirFd, n.name));
      } catch {
        this.lost();
        return undefined;
      }
      this.checkClone(Number(st.mode), Number(st.uid), Number(st.gid), Number(st.ctimeNs / 1_000_000n), () => ({
        type: 'symlink',
        rel: n.rel,
        mtimeNs,
        target,
      }));
      this.symlinks++;
      this.buildBytes += linkBlockBytes(target);
      this.lines.push(JSON.stringify({ type: 'symlink', path: n.rel, target, mtimeNs } satisfies SnapshotEntry));
    } else if (st.isFile() && !(st.nlink > 1n && Number(st.uid) !== this.job.ownUid)) {
      const read = this.file(dirFd, n.name, n.rel, st.ino);
      if (typeof read === 'string') this.skipped++;
      else return this.captured(read);
    } else {
      // FIFOs, sockets, devices, and files of other owners linked in: never captured.
      this.skipped++;
    }
    return undefined;
  }

  /** A file read: counted and written in the entries; its record. Undefined (gone, or swapped since it was listed) counts as left out. */
  captured(read: { entry: FileEntry; stamp: number[] | null } | undefined): KeptFile | undefined {
    if (!read) {
      this.skipped++;
      return undefined;
    }
    this.files++;
    this.bytes += read.entry.size;
    this.holeBytes += holeBytesOf(read.entry.chunks, read.entry.size);
    this.buildBytes += fileBlockBytes(read.entry);
    const line = JSON.stringify(read.entry);
    this.lines.push(line);
    return { entry: read.entry, line, stamp: read.stamp };
  }

  /**
   * A file read and hashed through a descriptor; its key is left empty when it kept changing or was
   * changed just before it was read ({@link RACY_MS}). `listedIno` is the inode an lstat found at
   * the name: another one there now (swapped in between) is left out (undefined). Without it (the
   * name was only listed as a regular file) the descriptor is all there is: 'not a file' when it
   * cannot be opened as one, and 'left out' for a file of several links owned by another uid
   * (linked in from elsewhere), as the lstat way does.
   */
  file(dirFd: number, name: string, rel: string, listedIno?: bigint): { entry: FileEntry; stamp: number[] | null } | 'not a file' | 'left out' | undefined {
    // A file the agent closed to its owner (chmod 000) on a box that is not root is read all the same.
    const fd = openFileAtSync(dirFd, name) ?? openClosedFileSync(dirFd, name);
    if (fd === undefined) return listedIno === undefined ? 'not a file' : undefined;
    try {
      let last: FileEntry | undefined;
      for (let read = 1; read <= READS; read++) {
        const startedAt = Date.now();
        const before = fstatSync(fd);
        if (listedIno === undefined) {
          // O_NONBLOCK and O_NOCTTY: a FIFO or terminal swapped in was opened without waiting or effect, and goes the lstat way.
          if (!before.isFile()) return 'not a file';
          if (before.nlink > 1 && before.uid !== this.job.ownUid) return 'left out';
        } else if (!before.isFile() || before.ino !== Number(listedIno)) {
          // The same inode the walk listed, still a regular file: a swap in between is left out.
          return undefined;
        }
        if (read === 1 && before.nlink > 1) {
          const again = this.linked.get(`${before.dev}:${before.ino}`);
          // The same stamp as a read that was stable and not racy (its key set): nothing was written since.
          if (again && again.key === statKey(before)) return this.linkedAgain(again, rel, before);
        }
        const chunks = this.read(fd, rel, before.blocks * 512);
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
          const captured = last;
          this.checkClone(after.mode, after.uid, after.gid, after.ctimeMs, () => fileSuspect(captured));
          if (after.nlink > 1 && last.key !== '') this.linked.set(`${after.dev}:${after.ino}`, last);
          return { entry: last, stamp: last.key === '' ? null : stampOf(after) };
        }
      }
      // Still changing: kept as last read, and said so. Its key is empty, so the next snapshot reads it again.
      this.changed++;
      if (this.changedPaths.length < MAX_CHANGED_PATHS) this.changedPaths.push(rel);
      this.referChunks(last!);
      this.unfitForClone++;
      return { entry: last!, stamp: null };
    } finally {
      closeSync(fd);
    }
  }

  /** Another name of a file this capture read (`first`), unchanged since: that read's chunks under this name, the file not read again. */
  linkedAgain(first: FileEntry, rel: string, st: Stats): { entry: FileEntry; stamp: number[] } {
    const entry: FileEntry = { ...first, path: rel };
    this.referChunks(entry);
    this.checkClone(st.mode, st.uid, st.gid, st.ctimeMs, () => fileSuspect(entry));
    return { entry, stamp: stampOf(st) };
  }

  /** Count every chunk of a file entry read before (or kept as last read) as referred to by this snapshot. */
  referChunks(entry: FileEntry): void {
    const { size, chunks } = entry;
    for (let i = 0; i < chunks.length; i++) this.refer(chunks[i]!, chunkSize(size, i, CHUNK_BYTES));
  }

  /** Read the file at `rel` from its start, chunk by chunk, storing each chunk not stored yet; what it reads beyond its `allocated` bytes is charged as holes. */
  read(fd: number, rel: string, allocated: number): Array<{ hash: string; size: number }> {
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
      this.holes.charge(rel, allocated, position, n);
      const data = this.buf.subarray(0, n);
      const hash = zeroChunkHash(data) ?? createHash('sha256').update(data).digest('hex');
      this.objects.put(hash, data);
      chunks.push({ hash, size: n });
      position += n;
      if (n < CHUNK_BYTES) break;
    }
    return chunks;
  }
}

/** What the clone check compares for a file as this capture recorded it. */
function fileSuspect(entry: FileEntry): Suspect {
  return { type: 'file', rel: entry.path, mode: entry.mode, mtimeNs: entry.mtimeNs, size: entry.size, chunks: entry.chunks };
}

/** The capture's clone holds what it read: nothing left out, nothing unfit, every suspect as read. */
function cloneFits(c: Capture): boolean {
  if (c.job.cloneFd === undefined || c.skipped > 0 || c.unfitForClone > 0) return false;
  return c.suspects.length === 0 || cloneHoldsSuspects(c.job.cloneFd, c.suspects, c.owner);
}

/**
 * Capture the directory open as `job.rootFd`; what the cache keeps serves this worker's next
 * captures, and `ahead`, when given, shares the lstats of a second snapshot with a helper thread.
 */
export function capture(job: CaptureJob, cache: CaptureCache, ahead?: Pick<StatAhead, 'start'>): CaptureResult {
  const c = new Capture(job, cache, readlinkSync(`/proc/self/fd/${job.rootFd}`));
  let packed: boolean;
  try {
    if (job.previous) c.ahead = ahead?.start(c.previous);
    const root = fstatSync(job.rootFd, { bigint: true });
    c.owner = { uid: Number(root.uid), gid: Number(root.gid) };
    const meta = { mode: Number(root.mode) & 0o777, mtimeNs: String(root.mtimeNs) };
    c.dirMeta.set('', meta);
    c.walk(job.rootFd, c.root, '', meta);
  } finally {
    c.ahead?.end();
    packed = c.objects.close(job.durable);
  }
  // Its index beside it in tmp/: the service moves both into packs/, the index last.
  if (packed) {
    writeNewFile(c.objects.tmpFile.replace(/\.pack$/, '.idx'), JSON.stringify(c.objects.index), job.durable);
    // Known from now on, so the next capture need not read the index back; dropped at its start if the service did not commit the pack.
    c.known.add(job.pack, Object.keys(c.objects.index));
  }
  // Memory of its own: transferred to the service, not copied.
  const text = encodeLines(c.lines);
  const entriesSha256 = sha256Hex(text);
  c.kept.files = c.files;
  cache.keep(entriesSha256, c.kept);
  return {
    packed,
    entriesText: text,
    entriesSha256,
    changedPaths: c.changedPaths,
    ...(cloneFits(c) ? { cloneFit: true } : {}),
    stats: {
      files: c.files,
      dirs: c.dirs,
      symlinks: c.symlinks,
      skipped: c.skipped,
      bytes: c.bytes,
      holeBytes: c.holeBytes,
      buildBytes: c.buildBytes,
      chunks: c.seen.size,
      storedBytes: c.storedBytes,
      addedChunks: c.objects.addedChunks,
      addedBytes: c.objects.addedBytes,
      reusedFiles: c.reusedFiles,
      ...(c.aheadFiles > 0 ? { aheadFiles: c.aheadFiles } : {}),
      reusedDirs: c.reusedDirs,
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

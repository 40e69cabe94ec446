// A snapshot's tree built in a new private directory (in the worker): each entry made through its parent's descriptor, files written from the store's packs, links as links, permission bits only, given to the target agent.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  futimesSync,
  lchownSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { atFd, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { chunkSize, parseEntries } from './entries-file.js';
import { loadIndex, packFile, type ChunkLocation } from './object-store.js';
import { CHUNK_BYTES, type SnapshotEntry } from './snapshot-manifest.js';

type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;
import type { MaterializeJob, MaterializeResult } from './snapshot-protocol.js';

/** Nanoseconds as the seconds utimes takes (a double: about 0.2 µs of precision today). */
const seconds = (ns: string): number => Number(BigInt(ns)) / 1e9;

/** A directory made and still open while its entries are made: its own mode and mtime are set when it is left. */
interface OpenDir {
  path: string;
  fd: number;
  mode: number;
  mtimeNs: string;
}

/**
 * Build the snapshot in `job.target`, made here (0700, so nothing else enters it while it is
 * built; a name already there is refused). Entries come in walk order: a directory, then all it
 * holds. Each is made through its parent's descriptor, so a path of any length comes back (a
 * capture walks by descriptors too, and paths past PATH_MAX are an agent's to make); the
 * directories on the way down are held open, at most MAX_TREE_DEPTH of them. A directory is made
 * 0700 and gets its own mode and mtime when the walk leaves it, so a read-only directory does not
 * stop its children. Modes keep the permission bits only: setuid, setgid and sticky never come
 * back. Only files, directories and links are in a snapshot, so no device or FIFO is ever made.
 */
export function materialize(job: MaterializeJob): MaterializeResult {
  const entries = parseEntries(readFileSync(job.entriesFile), job.entriesSha256, job.entriesFile);
  const first = entries[0];
  if (first?.type !== 'dir' || first.path !== '') throw damaged('it does not start with its root directory');
  mkdirSync(job.target, { mode: 0o700 });
  const root = openSync(job.target, DIR_FLAGS);
  const packs = new Packs(job.storeDir);
  const result: MaterializeResult = { files: 0, dirs: 1, symlinks: 0, bytes: 0 };
  const open: OpenDir[] = [{ path: '', fd: root, mode: first.mode & 0o777, mtimeNs: first.mtimeNs }];
  if (job.owner) fchownSync(root, job.owner.uid, job.owner.gid);
  /** Leave the directory on top: its mode and mtime, now that nothing more is made in it. */
  const leave = (): void => {
    const d = open.pop()!;
    try {
      fchmodSync(d.fd, d.mode);
      futimesSync(d.fd, seconds(d.mtimeNs), seconds(d.mtimeNs));
    } finally {
      if (d.fd !== root) closeSync(d.fd);
    }
  };
  try {
    for (const e of entries.slice(1)) {
      const slash = e.path.lastIndexOf('/');
      const parent = slash === -1 ? '' : e.path.slice(0, slash);
      while (open.length > 0 && open.at(-1)!.path !== parent) leave();
      const dir = open.at(-1);
      if (!dir) throw damaged(`"${e.path}" comes after its directory was left`);
      // The directory is private and new: a name below its descriptor meets only what was made here.
      const p = atFd(dir.fd, e.path.slice(slash + 1));
      if (e.type === 'dir') {
        mkdirSync(p, { mode: 0o700 });
        const fd = openSync(p, DIR_FLAGS);
        open.push({ path: e.path, fd, mode: e.mode & 0o777, mtimeNs: e.mtimeNs });
        if (job.owner) fchownSync(fd, job.owner.uid, job.owner.gid);
        result.dirs++;
      } else if (e.type === 'symlink') {
        symlinkSync(e.target, p);
        if (job.owner) lchownSync(p, job.owner.uid, job.owner.gid);
        lutimesSync(p, seconds(e.mtimeNs), seconds(e.mtimeNs));
        result.symlinks++;
      } else {
        writeFileFromChunks(packs, p, e, job.owner);
        result.files++;
        result.bytes += e.size;
      }
    }
    while (open.length > 0) leave();
    return result;
  } finally {
    for (const d of open) if (d.fd !== root) closeSync(d.fd);
    packs.close();
    closeSync(root);
  }
}

const damaged = (why: string) => new Error(`snapshot entries are out of order (${why}): the store is damaged`);

/** Pack descriptors held open for one materialisation, and the chunk index. */
class Packs {
  readonly #fds = new Map<string, number>();
  readonly #index: Map<string, ChunkLocation>;
  readonly buf = Buffer.allocUnsafe(CHUNK_BYTES);

  constructor(private readonly storeDir: string) {
    this.#index = loadIndex(storeDir);
  }

  /** Chunk `hash` of `want` bytes, read into `buf`. */
  read(hash: string, want: number): Buffer {
    const loc = this.#index.get(hash);
    if (!loc || loc.length !== want) throw new Error(`snapshot chunk ${hash} is missing from the store: the store is damaged`);
    let fd = this.#fds.get(loc.pack);
    if (fd === undefined) {
      fd = openSync(packFile(this.storeDir, loc.pack), constants.O_RDONLY);
      this.#fds.set(loc.pack, fd);
    }
    let n = 0;
    while (n < want) {
      const got = readSync(fd, this.buf, n, want - n, loc.offset + n);
      if (got === 0) throw new Error(`pack ${loc.pack} is shorter than its index says: the store is damaged`);
      n += got;
    }
    return this.buf.subarray(0, want);
  }

  close(): void {
    for (const fd of this.#fds.values()) closeSync(fd);
  }
}

/**
 * A new file (O_EXCL, O_NOFOLLOW) written chunk after chunk from the packs: the agent's own copy,
 * never a link into the store. Owner, mode and mtime are set on its descriptor before it is
 * closed: on a busy disk three path lookups more per file cost a third of a fork's time.
 */
function writeFileFromChunks(packs: Packs, p: string, e: FileEntry, owner: MaterializeJob['owner']): void {
  const fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    for (const [i, hash] of e.chunks.entries()) {
      const data = packs.read(hash, chunkSize(e.size, i, CHUNK_BYTES));
      let off = 0;
      while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    }
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    // After the chown, which would clear setuid bits anyway: the mode never carries them.
    fchmodSync(fd, e.mode & 0o777);
    futimesSync(fd, seconds(e.mtimeNs), seconds(e.mtimeNs));
  } finally {
    closeSync(fd);
  }
}

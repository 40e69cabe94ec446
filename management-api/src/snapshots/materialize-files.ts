// The files and links of a snapshot build, written from the store's packs: one part of the entries (all of them, or a thread's share), in directories the build made before.
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  ftruncateSync,
  futimesSync,
  lchownSync,
  lutimesSync,
  openSync,
  readSync,
  symlinkSync,
  writeSync,
} from 'node:fs';
import { atFd } from '../workspace-files/dir-fd.js';
import { fsPath } from '../fs-names.js';
import { chunkSize } from './entries-file.js';
import { DirStack, seconds, splitPath } from './materialize-dirs.js';
import { type ChunkLocation, checkChunk, packFile } from './object-store.js';
import { CHUNK_BYTES, isHoleChunk, type SnapshotEntry } from './snapshot-manifest.js';
import type { MaterializePart, MaterializeResult, Owner } from './snapshot-protocol.js';

type FileEntry = Extract<SnapshotEntry, { type: 'file' }>;
/** The entries a build writes through this module: everything but directories. */
export type LeafEntry = Exclude<SnapshotEntry, { type: 'dir' }>;

/** Pack descriptors held open for one build (or one part of it), and where each chunk is. */
class Packs {
  readonly #fds = new Map<string, number>();
  readonly buf = Buffer.allocUnsafe(CHUNK_BYTES);

  constructor(
    private readonly storeDir: string,
    private readonly index: ReadonlyMap<string, ChunkLocation>,
  ) {}

  /**
   * Chunk `hash` of `want` bytes, read into `buf` and checked against the sha256 it is named by:
   * a damaged pack fails the build (whose directory is then removed, or, for a restore, never
   * swapped in) rather than give an agent other bytes than the snapshot's. A hash costs about half a
   * second a GiB on one core here; a build's threads share it.
   */
  read(hash: string, want: number): Buffer {
    const loc = this.index.get(hash);
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
    const data = this.buf.subarray(0, want);
    checkChunk(data, hash, `snapshot chunk ${hash} read from pack ${loc.pack}`);
    return data;
  }

  close(): void {
    for (const fd of this.#fds.values()) closeSync(fd);
    this.#fds.clear();
  }
}

/** Make file or link `e` as `name` in the directory open as `dirFd`; the bytes written are added to `written` as they go. */
function writeLeaf(
  packs: Packs,
  dirFd: number,
  name: string,
  e: LeafEntry,
  owner: Owner | undefined,
  result: MaterializeResult,
  written: BigInt64Array | undefined,
): void {
  const p = atFd(dirFd, name);
  if (e.type === 'symlink') {
    symlinkSync(fsPath(e.target), p);
    if (owner) lchownSync(p, owner.uid, owner.gid);
    lutimesSync(p, seconds(e.mtimeNs), seconds(e.mtimeNs));
    result.symlinks++;
  } else {
    writeFileFromChunks(packs, p, e, owner, written);
    result.files++;
    result.bytes += e.size;
  }
}

/**
 * A new file (O_EXCL, O_NOFOLLOW) written chunk after chunk from the packs: the agent's own copy,
 * never a link into the store. A whole chunk of zeros is not written but left as a hole (the file's
 * length set at the end), so a sparse file comes back sparse. Owner, mode and mtime are set on its
 * descriptor before it is closed: on a busy disk three path lookups more per file cost a third of
 * a fork's time.
 */
function writeFileFromChunks(packs: Packs, p: string | Buffer, e: FileEntry, owner: Owner | undefined, written: BigInt64Array | undefined): void {
  const fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let position = 0;
    let holes = false;
    for (const [i, hash] of e.chunks.entries()) {
      const size = chunkSize(e.size, i, CHUNK_BYTES);
      if (isHoleChunk(hash, size)) {
        holes = true;
      } else {
        const data = packs.read(hash, size);
        let off = 0;
        while (off < data.length) off += writeSync(fd, data, off, data.length - off, position + off);
        if (written) Atomics.add(written, 0, BigInt(size));
      }
      position += size;
    }
    if (holes) ftruncateSync(fd, e.size);
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    // After the chown, which would clear setuid bits anyway: the mode never carries them.
    fchmodSync(fd, e.mode & 0o777);
    futimesSync(fd, seconds(e.mtimeNs), seconds(e.mtimeNs));
  } finally {
    closeSync(fd);
  }
}

/**
 * One part of a build: its files and links, each in a directory the build made before (opened
 * here by name from the root's descriptor, which a worker thread shares). Stops at the next entry
 * once `stop` is raised (another part failed), closing what it opened.
 */
export function buildPart(part: MaterializePart): MaterializeResult {
  const result: MaterializeResult = { files: 0, dirs: 0, symlinks: 0, bytes: 0 };
  const packs = new Packs(part.storeDir, part.chunks);
  const dirs = new DirStack(part.rootFd);
  const stop = new Int32Array(part.stop);
  const written = part.written ? new BigInt64Array(part.written) : undefined;
  try {
    for (const e of part.entries) {
      if (Atomics.load(stop, 0) !== 0) throw new Error('another part of the build failed');
      const { parent, name } = splitPath(e.path);
      writeLeaf(packs, dirs.enter(parent, true), name, e, part.owner, result, written);
    }
    return result;
  } catch (err) {
    Atomics.store(stop, 0, 1);
    throw err;
  } finally {
    dirs.close();
    packs.close();
  }
}

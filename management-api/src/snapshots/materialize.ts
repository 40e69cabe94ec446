// A snapshot's tree built in a new private directory (in the worker): files copied from the store (reflinked where the filesystem can), links as links, permission bits only, given to the target agent.
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  lchownSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  symlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { atFd, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import { chunkSize, parseEntries } from './entries-file.js';
import { objectPath } from './object-store.js';
import { CHUNK_BYTES } from './snapshot-manifest.js';
import type { MaterializeJob, MaterializeResult } from './snapshot-protocol.js';

/** Nanoseconds as the seconds utimes takes (a double: about 0.2 µs of precision today). */
const seconds = (ns: string): number => Number(BigInt(ns)) / 1e9;

/**
 * Build the snapshot in `job.target`, made here (0700, so nothing else enters it while it is
 * built; a name already there is refused). Entries come parents first; directories are made
 * 0700 and get their own mode and mtime last, deepest first, so a read-only directory does not
 * stop its children. Modes keep the permission bits only: setuid, setgid and sticky never come
 * back. Only files, directories and links are in a snapshot, so no device or FIFO is ever made.
 */
export function materialize(job: MaterializeJob): MaterializeResult {
  const entries = parseEntries(readFileSync(job.entriesFile), job.entriesSha256, job.entriesFile);
  mkdirSync(job.target, { mode: 0o700 });
  const root = openSync(job.target, DIR_FLAGS);
  const result: MaterializeResult = { files: 0, dirs: 0, symlinks: 0, bytes: 0 };
  const own = (p: string) => {
    if (job.owner) lchownSync(p, job.owner.uid, job.owner.gid);
  };
  try {
    const dirs: Array<{ p: string; mode: number; mtimeNs: string }> = [];
    for (const e of entries) {
      // The directory is private and new: a path below its descriptor meets only what was made here.
      const p = atFd(root, e.path === '' ? '.' : e.path);
      if (e.type === 'dir') {
        if (e.path !== '') mkdirSync(p, { mode: 0o700 });
        own(p);
        dirs.push({ p, mode: e.mode & 0o777, mtimeNs: e.mtimeNs });
        result.dirs++;
      } else if (e.type === 'symlink') {
        symlinkSync(e.target, p);
        own(p);
        lutimesSync(p, seconds(e.mtimeNs), seconds(e.mtimeNs));
        result.symlinks++;
      } else {
        writeFileFromChunks(job.storeDir, p, e.chunks, e.size);
        own(p);
        // After the chown, which would clear setuid bits anyway: the mode never carries them.
        chmodSync(p, e.mode & 0o777);
        utimesSync(p, seconds(e.mtimeNs), seconds(e.mtimeNs));
        result.files++;
        result.bytes += e.size;
      }
    }
    for (const d of dirs.reverse()) {
      chmodSync(d.p, d.mode);
      utimesSync(d.p, seconds(d.mtimeNs), seconds(d.mtimeNs));
    }
    return result;
  } finally {
    closeSync(root);
  }
}

/**
 * A one-chunk file is copied from its object with copy_file_range, or a reflink where the
 * filesystem shares blocks (btrfs, XFS): the copy is the agent's own, never a hard link to the
 * store. A longer file is written chunk after chunk.
 */
function writeFileFromChunks(storeDir: string, p: string, chunks: readonly string[], size: number): void {
  if (chunks.length === 1) {
    copyFileSync(objectPath(storeDir, chunks[0]!), p, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
    return;
  }
  const fd = openSync(p, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    const buf = Buffer.allocUnsafe(CHUNK_BYTES);
    chunks.forEach((hash, i) => {
      const want = chunkSize(size, i, CHUNK_BYTES);
      const src = openSync(objectPath(storeDir, hash), constants.O_RDONLY);
      try {
        let n = 0;
        while (n < want) {
          const got = readSync(src, buf, n, want - n, n);
          if (got === 0) throw new Error(`snapshot object ${hash} is shorter than its chunk: the store is damaged`);
          n += got;
        }
      } finally {
        closeSync(src);
      }
      let off = 0;
      while (off < want) off += writeSync(fd, buf, off, want - off);
    });
  } finally {
    closeSync(fd);
  }
}

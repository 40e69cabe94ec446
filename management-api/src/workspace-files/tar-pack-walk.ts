// A workspace directory walked into a tar-stream pack with synchronous file calls (in the tar worker): regular files, directories and links as links; nothing else is packed.
import { closeSync, fstatSync, lstatSync, opendirSync, openSync, readlinkSync, readSync, type Dirent } from 'node:fs';
import type * as tar from 'tar-stream';
import { atFd, DIR_FLAGS, openFileAtSync } from './dir-fd.js';
import { MAX_TREE_DEPTH, treeTooDeep } from './tree-depth.js';

/** What a pack wrote and skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
}

/** Awaited before each entry: waits while the reader has no room, and throws once the pack is called off. */
export type Pace = () => Promise<void>;

/** Files up to this size are read whole and handed to the pack as one buffer; a larger one goes in CHUNK steps. */
const WHOLE_BYTES = 1 << 20;
const CHUNK = 1 << 20;

type Header = Parameters<tar.Pack['entry']>[0];

/**
 * Pack the directory open as `dirFd` (the caller keeps it open until this settles). Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked (fstat) to be a
 * regular file, and one of another owner with several links (linked in, not made here) is left
 * out; one that shrinks while read is padded with zeros to its size when opened, one that grows is
 * cut to it (a tar header states the size first). Long and non-ASCII names go in pax records.
 *
 * What a walk holds is bounded whatever the tree: each directory's listing is read as it goes
 * (a few dozen names at a time, in the directory's own order), never whole, and a directory more
 * than MAX_TREE_DEPTH levels down fails the pack (its descriptors, two a level, are the process's).
 */
export function packDirectory(pack: tar.Pack, dirFd: number, ownUid: number, report: PackReport, pace: Pace): Promise<void> {
  return walkDirectory({ pack, ownUid, report, pace }, dirFd, '', 0);
}

/** What every step of one pack's walk shares. */
interface Walk {
  pack: tar.Pack;
  ownUid: number;
  report: PackReport;
  pace: Pace;
}

/** The directory open as `dirFd`, `depth` levels below the packed one, its names under `prefix`. */
async function walkDirectory(walk: Walk, dirFd: number, prefix: string, depth: number): Promise<void> {
  const listing = opendirSync(atFd(dirFd, '.'));
  try {
    for (let d = listing.readSync(); d !== null; d = listing.readSync()) {
      await walk.pace();
      await packEntry(walk, dirFd, d, `${prefix}${d.name}`, depth);
    }
  } finally {
    listing.closeSync();
  }
}

/** One entry of a directory listing into the pack (a directory with all it holds). */
async function packEntry(walk: Walk, dirFd: number, d: Dirent, rel: string, depth: number): Promise<void> {
  const { pack, report } = walk;
  if (d.isFile()) {
    if (!(await packFile(pack, dirFd, d.name, rel, walk.ownUid, walk.pace))) report.skipped++;
    else report.entries++;
  } else if (d.isDirectory()) {
    if (depth + 1 > MAX_TREE_DEPTH) throw treeTooDeep(rel, 'to pack');
    let sub: number;
    try {
      sub = openSync(atFd(dirFd, d.name), DIR_FLAGS);
    } catch {
      // Swapped for a link or removed since it was listed: left out, like any entry that is not a directory.
      report.skipped++;
      return;
    }
    try {
      const st = fstatSync(sub);
      report.entries++;
      await entry(pack, { name: `${rel}/`, type: 'directory', mode: st.mode & 0o777, mtime: st.mtime });
      await walkDirectory(walk, sub, `${rel}/`, depth + 1);
    } finally {
      closeSync(sub);
    }
  } else if (d.isSymbolicLink()) {
    let link: { mtime: Date; target: string } | undefined;
    try {
      const st = lstatSync(atFd(dirFd, d.name));
      if (st.isSymbolicLink()) link = { mtime: st.mtime, target: readlinkSync(atFd(dirFd, d.name)) };
    } catch {
      link = undefined;
    }
    if (!link) return;
    report.entries++;
    await entry(pack, { name: rel, type: 'symlink', mode: 0o777, mtime: link.mtime, linkname: link.target });
  } else {
    // FIFOs, sockets, devices: never opened.
    report.skipped++;
  }
}

/** One regular file into the pack; false when it is left out (gone, swapped, not a file, linked in). */
async function packFile(pack: tar.Pack, dirFd: number, name: string, rel: string, ownUid: number, pace: Pace): Promise<boolean> {
  const fd = openFileAtSync(dirFd, name);
  if (fd === undefined) return false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (st.nlink > 1 && st.uid !== ownUid)) return false;
    const header: Header = { name: rel, type: 'file', mode: st.mode & 0o777, mtime: st.mtime, size: st.size };
    if (st.size <= WHOLE_BYTES) {
      await entry(pack, header, readUpTo(fd, st.size));
      return true;
    }
    // A large file in steps, each taken by the pack before the next is read.
    let done!: (err?: Error | null) => void;
    const taken = new Promise<void>((resolve, reject) => {
      done = (err) => (err ? reject(err) : resolve());
    });
    // Called off midway (pace throws), nothing awaits this any more: should the entry still fail, that is no unhandled rejection in the shared worker.
    taken.catch(() => undefined);
    const sink = pack.entry(header, done);
    for (let left = st.size; left > 0; ) {
      await pace();
      const chunk = readUpTo(fd, Math.min(CHUNK, left));
      left -= chunk.length;
      if (!sink.write(chunk)) await Promise.race([new Promise<void>((resolve) => sink.once('drain', () => resolve())), taken]);
    }
    sink.end(undefined);
    await taken;
    return true;
  } finally {
    closeSync(fd);
  }
}

/** `size` bytes from the descriptor's position: what it holds, zeros after an early end. */
function readUpTo(fd: number, size: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, data, got, size - got, null);
    if (n === 0) break;
    got += n;
  }
  data.fill(0, got);
  return data;
}

/** An entry without a body, or with all of it; resolves once the pack took it. */
function entry(pack: tar.Pack, header: Header, data?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (data) pack.entry(header, data, done);
    else pack.entry(header, done);
  });
}

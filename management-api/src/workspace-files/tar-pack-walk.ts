// A workspace directory walked into a tar with synchronous file calls (in the tar worker): regular files, directories and links as links; nothing else is packed.
import { closeSync, fstatSync, lstatSync, opendirSync, openSync, type Dirent } from 'node:fs';
import { atFd, DIR_FLAGS, openFileAtSync } from './dir-fd.js';
import { BYTE_NAMES, nameOf, readlinkNameSync } from '../fs-names.js';
import type { HoleAllowance } from './hole-allowance.js';
import type { TarWriter } from './tar-writer.js';
import { MAX_TREE_DEPTH, treeTooDeep } from './tree-depth.js';

/** What a pack wrote and skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
  /** The first SKIPPED_NAMED of the entries left out, relative to the packed directory, so that a caller can say which. */
  skippedNames?: string[];
}

/** How many entries left out a report names (the count goes on past them). */
export const SKIPPED_NAMED = 20;

/** Count `rel` as left out, naming it while the report names fewer than SKIPPED_NAMED. */
function skip(report: PackReport, rel: string): void {
  report.skipped++;
  const names = (report.skippedNames ??= []);
  if (names.length < SKIPPED_NAMED) names.push(rel);
}

/** Awaited before each entry: waits while the reader has no room, and throws once the pack is called off. */
export type Pace = () => Promise<void>;

/**
 * Pack the directory open as `dirFd` (the caller keeps it open until this settles). Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked (fstat) to be a
 * regular file, and one of another owner with several links (linked in, not made here) is left
 * out; one that grows while read is cut to its size when opened (a tar header states the size
 * first), and one that shrinks fails the pack (tar-writer.ts says why). Long and non-ASCII names go in pax records, names
 * and link targets that are not UTF-8 in GNU long-name records as their bytes (tar-writer.ts).
 *
 * What a walk holds is bounded whatever the tree: each directory's listing is read as it goes
 * (a few dozen names at a time, in the directory's own order), never whole, and a directory more
 * than MAX_TREE_DEPTH levels down fails the pack (its descriptors, two a level, are the process's).
 */
export function packDirectory(
  out: TarWriter,
  dirFd: number,
  /** `ownUid`: whose files are the agent's; `holes`: what the pack may read through of sparse files' holes. */
  bounds: { ownUid: number; holes: HoleAllowance },
  report: PackReport,
  pace: Pace,
): Promise<void> {
  return walkDirectory({ out, ...bounds, linked: new Set(), report, pace }, dirFd, '', 0);
}

/** What every step of one pack's walk shares. */
interface Walk {
  out: TarWriter;
  ownUid: number;
  holes: HoleAllowance;
  /** Files of several links packed so far, by device and inode. */
  linked: Set<string>;
  report: PackReport;
  pace: Pace;
}

/** The directory open as `dirFd`, `depth` levels below the packed one, its names under `prefix`. */
async function walkDirectory(walk: Walk, dirFd: number, prefix: string, depth: number): Promise<void> {
  // As bytes: a name that is not UTF-8 is packed as its bytes (TarWriter's long-name records), not lost.
  const listing = opendirSync(atFd(dirFd, '.'), BYTE_NAMES);
  try {
    for (let raw = listing.readSync(); raw !== null; raw = listing.readSync()) {
      await walk.pace();
      const name = nameOf(raw);
      await packEntry(walk, dirFd, raw, `${prefix}${name}`, name, depth);
    }
  } finally {
    listing.closeSync();
  }
}

/** One entry of a directory listing into the pack (a directory with all it holds). */
async function packEntry(walk: Walk, dirFd: number, d: Dirent, rel: string, name: string, depth: number): Promise<void> {
  const { out, report } = walk;
  if (d.isFile()) {
    if (!(await packFile(walk, dirFd, name, rel))) skip(report, rel);
    else report.entries++;
  } else if (d.isDirectory()) {
    if (depth + 1 > MAX_TREE_DEPTH) throw treeTooDeep(rel, 'to pack');
    let sub: number;
    try {
      sub = openSync(atFd(dirFd, name), DIR_FLAGS);
    } catch {
      // Swapped for a link or removed since it was listed: left out, like any entry that is not a directory.
      skip(report, `${rel}/`);
      return;
    }
    try {
      const st = fstatSync(sub);
      report.entries++;
      await out.entry({ path: `${rel}/`, type: 'Directory', mode: st.mode & 0o777, mtime: st.mtime });
      await walkDirectory(walk, sub, `${rel}/`, depth + 1);
    } finally {
      closeSync(sub);
    }
  } else if (d.isSymbolicLink()) {
    let link: { mtime: Date; target: string } | undefined;
    try {
      const st = lstatSync(atFd(dirFd, name));
      if (st.isSymbolicLink()) link = { mtime: st.mtime, target: readlinkNameSync(atFd(dirFd, name)) };
    } catch {
      link = undefined;
    }
    if (!link) return;
    report.entries++;
    await out.entry({ path: rel, type: 'SymbolicLink', mode: 0o777, mtime: link.mtime, linkpath: link.target });
  } else {
    // FIFOs, sockets, devices: never opened.
    skip(report, rel);
  }
}

/** One regular file into the tar; false when it is left out (gone, swapped, not a file, linked in). */
async function packFile({ out, ownUid, holes, linked }: Walk, dirFd: number, name: string, rel: string): Promise<boolean> {
  const fd = openFileAtSync(dirFd, name);
  if (fd === undefined) return false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (st.nlink > 1 && st.uid !== ownUid)) return false;
    if (st.nlink > 1) {
      // Packed again under each further link: bytes the disk budget counted once (HoleAllowance.chargeRepeat).
      const key = `${st.dev}:${st.ino}`;
      if (linked.has(key)) holes.chargeRepeat(rel, st.size);
      else linked.add(key);
    }
    // Its size as of now is what is packed (a file that grows is cut to it): every byte beyond its blocks is a hole read.
    holes.charge(rel, st.blocks * 512, 0, st.size);
    await out.file({ path: rel, type: 'File', mode: st.mode & 0o777, mtime: st.mtime, size: st.size }, fd);
    return true;
  } finally {
    closeSync(fd);
  }
}

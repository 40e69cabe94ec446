// Measures the disk an agent's directories take: a walk in short slices that never follows a link, counts a hard-linked file once and caps its own work.
import { lstatSync, type Dir, type Stats } from 'node:fs';
import { opendir } from 'node:fs/promises';
import path from 'node:path';
import { BYTE_NAMES, fsPath, nameOf } from '../../fs-names.js';
import { ThreadSlices } from '../../thread-slices.js';
import { SUBVOLUME_ROOT_INO } from '../subvolumes.js';

/** Most entries one walk looks at unless told otherwise (sandbox.limits.entries' default); a tree with more is not measured but counted over budget. */
export const MAX_WALK_ENTRIES = 200_000;
/** Entries a directory is read by at a time (one call on the thread pool each). */
export const ENTRIES_PER_TURN = 256;

/** The file system calls a walk makes (tests put failures in). */
export interface WalkFs {
  lstat(file: string): Stats;
  opendir(dir: string, options: { bufferSize: number }): Promise<Dir>;
}

/** How a walk is bounded. */
export interface DiskWalkOptions {
  /** Stop once more than this many entries below the roots were seen (default {@link MAX_WALK_ENTRIES}). */
  maxEntries?: number;
  /** Read directories this many entries at a time (default {@link ENTRIES_PER_TURN}); the event loop gets a turn at each read. */
  entriesPerTurn?: number;
  /** Stop as soon as the total is above this: the budget is exceeded whatever the rest holds. */
  stopAboveBytes?: number;
  fs?: WalkFs;
}

/** What a walk found. */
export interface DiskWalkResult {
  /** Bytes allocated (st_blocks × 512) by the entries seen: sparse files count what they hold, a hard-linked file once. */
  bytes: number;
  entries: number;
  /** Of those, the roots themselves (those that exist): what is below them is what the entry cap counts. */
  rootEntries: number;
  /** Why `bytes` is not the whole tree: what could not be read and its error code, or the entry cap. Absent when complete or stopped above the budget. */
  unmeasurable?: string;
  /** Set when the walk stopped at the entry cap (`unmeasurable` then says which): the tree holds more entries than it may. */
  overEntries?: true;
  /** Directories not descended into because they are another file system (a mount point), as `du -x`; btrfs subvolumes are descended into. */
  otherDevices: number;
}

/**
 * The calls themselves, names as bytes: a name that is not UTF-8 is listed escaped and looked up
 * by its bytes (fs-names.ts). Decoded as text, such a name looks up nothing (ENOENT, skipped as
 * vanished), and a directory so named would hide everything below it from the budget.
 */
const nodeFs: WalkFs = {
  lstat: (file) => lstatSync(fsPath(file)),
  opendir: (dir, options) => opendir(fsPath(dir), { ...options, ...BYTE_NAMES }),
};

/**
 * Walk `roots` (each an absolute directory; one that does not exist counts nothing) depth-first
 * with an explicit stack, so a deep tree costs memory, not call stack. Links are counted as the
 * link itself and never followed, so loops cannot form. A path that cannot be read (EACCES, a
 * path beyond PATH_MAX: ENAMETOOLONG, ELOOP…) ends the walk as unmeasurable: whoever made a tree
 * the box cannot read is not given the benefit of the doubt. An entry that vanishes meanwhile
 * (ENOENT) is skipped: the agent deleting files is not a fault.
 */
export async function walkDisk(roots: readonly string[], options: DiskWalkOptions = {}): Promise<DiskWalkResult> {
  const fs = options.fs ?? nodeFs;
  const maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
  const perTurn = options.entriesPerTurn ?? ENTRIES_PER_TURN;
  const result: DiskWalkResult = { bytes: 0, entries: 0, rootEntries: 0, otherDevices: 0 };
  // Files with several links, by device and inode: each counted at its first link only.
  const linked = new Set<string>();
  // Each entry's lstat is a synchronous call, made in slices (thread-slices.ts): on the thread pool the walk went at 13,000–50,000 entries a second.
  const slices = new ThreadSlices();
  const stack: Array<{ dir: string; dev: number }> = [];

  /** Count one entry; false when the walk must stop. */
  const count = (file: string, st: Stats, dev: number): boolean => {
    result.entries++;
    if (st.nlink > 1 && !st.isDirectory()) {
      const key = `${st.dev}:${st.ino}`;
      if (linked.has(key)) return true;
      linked.add(key);
    }
    result.bytes += st.blocks * 512;
    if (st.isDirectory()) {
      if (st.dev === dev) stack.push({ dir: file, dev });
      // A btrfs subvolume has a device number of its own but is the same filesystem: walked (an
      // agent's files there are its own). A mount whose root happens to have that inode number is
      // walked too: counted against the agent, never for it.
      else if (st.ino === SUBVOLUME_ROOT_INO) stack.push({ dir: file, dev: st.dev });
      else result.otherDevices++;
    }
    if (options.stopAboveBytes !== undefined && result.bytes > options.stopAboveBytes) return false;
    // The roots themselves are not counted against the cap, as a snapshot of a directory does not count it.
    if (result.entries - result.rootEntries > maxEntries) {
      result.unmeasurable = `more than ${maxEntries} entries (limits.entries)`;
      result.overEntries = true;
      return false;
    }
    return true;
  };
  /** The stat of `file`; undefined when it vanished; records the walk unmeasurable and throws Stop otherwise. */
  const stat = (file: string): Stats | undefined => {
    try {
      return fs.lstat(file);
    } catch (err) {
      return unreadable(file, err);
    }
  };
  const unreadable = (file: string, err: unknown): undefined => {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    result.unmeasurable = `${shorten(file)}: ${code}`;
    throw STOP;
  };

  try {
    for (const root of roots) {
      const st = stat(root);
      if (st) result.rootEntries++;
      if (st && !count(root, st, st.dev)) return result;
    }
    while (stack.length > 0) {
      const { dir, dev } = stack.pop()!;
      let handle: Dir | undefined;
      try {
        handle = await fs.opendir(dir, { bufferSize: perTurn });
      } catch (err) {
        unreadable(dir, err);
        continue;
      }
      let names: string[] = [];
      const flush = async (): Promise<boolean> => {
        for (const name of names) {
          const file = path.join(dir, name);
          const st = stat(file);
          if (st && !count(file, st, dev)) return false;
          await slices.pause();
        }
        names = [];
        return true;
      };
      try {
        // Breaking out of (or throwing from) the loop closes the directory.
        for await (const entry of handle) {
          names.push(nameOf(entry));
          if (names.length >= perTurn && !(await flush())) return result;
        }
      } catch (err) {
        if (err === STOP) throw err;
        unreadable(dir, err);
        continue;
      }
      if (!(await flush())) return result;
    }
  } catch (err) {
    if (err !== STOP) throw err;
  }
  return result;
}

const STOP = Symbol('stop the walk');

/** A path fit for a log line: a hostile one may be kilobytes long. */
function shorten(file: string): string {
  return file.length <= 200 ? file : `${file.slice(0, 80)}…(${file.length} characters)…${file.slice(-80)}`;
}

// Entries of the box's own that their mode keeps the box out of (a file chmod 000 or 0200, a directory 000, 0100 or 0600), opened for a capture on a box that is not root: the owner's bits opened up for the capture alone, then put back.
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, openSync, type Stats } from 'node:fs';
import { atFd } from '../workspace-files/dir-fd.js';

/** Linux's O_PATH (not in Node's constants): a descriptor of the inode itself, opened without any right to it. */
const O_PATH = 0o10000000;

/** The box's own entry whose owner bits lack some of `need` (root reads and enters anything, and never gets here). */
export const closedToBox = (st: { uid: number | bigint; mode: number | bigint }, need: number): boolean =>
  Number(st.uid) === process.geteuid?.() && (Number(st.mode) & need) !== need;

/**
 * `name` of the directory open as `dirFd`, opened O_PATH without following a link and checked by
 * `fits`; `open` then runs with its /proc path, which leads to that inode whatever the name leads
 * to by then (an agent's swap is never followed). Undefined when it is gone, a link, or not fit.
 */
function throughPath<T>(dirFd: number, name: string, flags: number, fits: (st: Stats) => boolean, open: (at: string, st: Stats) => T): T | undefined {
  let fd: number;
  try {
    fd = openSync(atFd(dirFd, name), O_PATH | constants.O_NOFOLLOW | flags);
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    return fits(st) ? open(`/proc/self/fd/${fd}`, st) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * A regular file of the box's own that its mode keeps the box from reading (an agent's chmod 000):
 * opened for reading with u+r granted for the open alone, its mode put back at once. Its ctime
 * moves, so the next snapshot reads it again. Undefined for anything else.
 */
export function openClosedFileSync(dirFd: number, name: string): number | undefined {
  return throughPath(
    dirFd,
    name,
    0,
    (st) => st.isFile() && closedToBox(st, 0o400),
    (at, st) => {
      chmodSync(at, (st.mode & 0o7777) | 0o400);
      try {
        // No O_NOFOLLOW: the /proc entry is a link to the very inode opened.
        return openSync(at, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
      } finally {
        chmodSync(at, st.mode & 0o7777);
      }
    },
  );
}

/**
 * A directory of the box's own that its mode keeps the box from listing or entering: opened with
 * u+rx granted, which stays while the walk is in it (each name below is looked up through it);
 * `reseal` puts its mode back, unless the agent changed it meanwhile.
 */
export function openClosedDirSync(dirFd: number, name: string): { fd: number; reseal(): void } | undefined {
  return throughPath(
    dirFd,
    name,
    constants.O_DIRECTORY,
    (st) => closedToBox(st, 0o500),
    (at, st) => {
      const mode = st.mode & 0o7777;
      chmodSync(at, mode | 0o500);
      let fd: number;
      try {
        fd = openSync(at, constants.O_RDONLY | constants.O_DIRECTORY);
      } catch (err) {
        chmodSync(at, mode);
        throw err;
      }
      return {
        fd,
        reseal: () => {
          if ((fstatSync(fd).mode & 0o7777) === (mode | 0o500)) fchmodSync(fd, mode);
        },
      };
    },
  );
}

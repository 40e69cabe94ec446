// The directories a snapshot build is in, held open from the root down: each entry is made through its parent's descriptor, and a directory's own mode and mtime (when given) are set as the build leaves it.
import { closeSync, fchmodSync, futimesSync, openSync } from 'node:fs';
import { atFd, DIR_FLAGS } from '../workspace-files/dir-fd.js';
import type { SnapshotEntry } from './snapshot-manifest.js';

/**
 * Nanoseconds as the seconds utimes takes, written out as decimal text: Node makes a negative
 * number of seconds (an mtime before 1970) "now", but takes a numeric string as it reads
 * (a double once parsed: about 0.2 µs of precision today).
 */
export const seconds = (ns: string): string => {
  const n = BigInt(ns);
  const abs = n < 0n ? -n : n;
  return `${n < 0n ? '-' : ''}${abs / 1_000_000_000n}.${String(abs % 1_000_000_000n).padStart(9, '0')}`;
};

/** A directory's own mode (permission bits) and mtime, set when it is left. */
export interface DirMeta {
  mode: number;
  mtimeNs: string;
}

interface OpenDir {
  path: string;
  fd: number;
  /** Absent: the directory is left as it is (a build that sets modes and mtimes in a later pass). */
  meta?: DirMeta | undefined;
}

/** The directory `path` is in ('' for the root's entries), and its own name. */
export function splitPath(path: string): { parent: string; name: string } {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? { parent: '', name: path } : { parent: path.slice(0, slash), name: path.slice(slash + 1) };
}

export const damaged = (why: string) => new Error(`snapshot entries are out of order (${why}): the store is damaged`);

/**
 * The open directories from the root to the one the build is in: at most MAX_TREE_DEPTH + 1, as a
 * capture refuses deeper trees. The root's descriptor is the caller's and is never closed here.
 */
export class DirStack {
  readonly #open: OpenDir[];

  constructor(
    private readonly rootFd: number,
    rootMeta?: DirMeta,
  ) {
    this.#open = [{ path: '', fd: rootFd, meta: rootMeta }];
  }

  /**
   * The descriptor of directory `path`, leaving the open ones it is not in. With `openMissing`,
   * the levels below the deepest one still open are opened by name (the files of a part, whose
   * directories were made before); without it the directory must be open already (the pass over
   * the directories, in walk order: each one's parent was entered just before).
   */
  enter(path: string, openMissing: boolean): number {
    while (this.#open.length > 1 && !within(path, this.#top.path)) this.leave();
    if (this.#top.path === path) return this.#top.fd;
    if (!openMissing) throw damaged(`"${path}" is not a directory the build is in`);
    const below = this.#top.path === '' ? path : path.slice(this.#top.path.length + 1);
    let at = this.#top.path;
    for (const name of below.split('/')) {
      at = at === '' ? name : `${at}/${name}`;
      this.push(at, openSync(atFd(this.#top.fd, name), DIR_FLAGS));
    }
    return this.#top.fd;
  }

  /** `fd`, the directory `path` just made or opened, is now the one the build is in. */
  push(path: string, fd: number, meta?: DirMeta): void {
    this.#open.push({ path, fd, meta });
  }

  /** Leave the directory the build is in: its mode and mtime, now that nothing more is made in it. */
  leave(): void {
    const d = this.#open.pop()!;
    try {
      if (d.meta) {
        fchmodSync(d.fd, d.meta.mode);
        futimesSync(d.fd, seconds(d.meta.mtimeNs), seconds(d.meta.mtimeNs));
      }
    } finally {
      if (d.fd !== this.rootFd) closeSync(d.fd);
    }
  }

  /** Leave every directory, the root last: the build is done. */
  finish(): void {
    while (this.#open.length > 0) this.leave();
  }

  /** Close what is still open (the build failed); no mode or mtime is set. */
  close(): void {
    for (const d of this.#open.splice(0)) if (d.fd !== this.rootFd) closeSync(d.fd);
  }

  get #top(): OpenDir {
    return this.#open.at(-1)!;
  }
}

/** True when `path` is `dir` or below it. */
const within = (path: string, dir: string): boolean => dir === '' || path === dir || path.startsWith(`${dir}/`);

/** A directory entry's meta: permission bits only (setuid, setgid and sticky never come back). */
export const dirMeta = (e: Extract<SnapshotEntry, { type: 'dir' }>): DirMeta => ({ mode: e.mode & 0o777, mtimeNs: e.mtimeNs });

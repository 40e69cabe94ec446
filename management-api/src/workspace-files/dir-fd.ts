// openat-style steps through a workspace: each directory held open and each name resolved from its descriptor, never through a link.
import { constants, lstatSync, openSync, type BigIntStats } from 'node:fs';
import { lstat, mkdir, open, rmdir, type FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import { throughLink } from './file-path.js';
import { fsPath } from '../fs-names.js';

/** A directory opened without following a link in its last component. */
export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** A file opened for reading without following a link, waiting on a FIFO's writer or taking a terminal; the caller checks (fstat) what it got. */
export const FILE_READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/** Who files the API makes in a workspace belong to: the agent's ids on a root box, else nobody to change to. */
export interface Owner {
  uid: number;
  gid: number;
}

/**
 * The path of `name` inside the directory open as `dir`. /proc/self/fd/N is the directory itself
 * however it was renamed or replaced since it was opened, so only `name` is looked up, and the
 * calls that use this path (open with O_NOFOLLOW, lstat, mkdir, unlink, rename) never follow a
 * link in it: Node has no openat, and this is the same walk.
 */
export function at(dir: FileHandle, name: string): string | Buffer {
  return atFd(dir.fd, name);
}

/** {@link at} for a name the API made itself (ASCII, so never bytes): a string, for what takes only one (a worker's job). */
export function atOwn(dir: FileHandle, name: string): string {
  if (!/^[\x21-\x7e]+$/.test(name)) throw new Error(`atOwn: "${name}" is not a name the API makes`);
  return `/proc/self/fd/${dir.fd}/${name}`;
}

/** {@link at} for a raw descriptor: the snapshot worker walks with synchronous calls on plain fds. A name holding bytes that are not UTF-8 (fs-names.ts) comes back as the bytes of the path. */
export function atFd(fd: number, name: string): string | Buffer {
  return fsPath(`/proc/self/fd/${fd}/${name}`);
}

/** `name` in the directory open as `dirFd`, opened with FILE_READ_FLAGS (synchronously, for the workers' walks); undefined when it cannot be (gone, a link). */
export function openFileAtSync(dirFd: number, name: string): number | undefined {
  try {
    return openSync(atFd(dirFd, name), FILE_READ_FLAGS);
  } catch {
    return undefined;
  }
}

/** {@link lstatAt} as a synchronous call, for walks made in slices of the API's thread (thread-slices.ts). */
export function lstatAtSync(dir: FileHandle, name: string): BigIntStats | undefined {
  try {
    return lstatSync(at(dir, name), { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** `name` in `dir`, or undefined when it does not exist. */
export async function lstatAt(dir: FileHandle, name: string): Promise<BigIntStats | undefined> {
  try {
    return await lstat(at(dir, name), { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Open directory `name` in `dir`; `shown` is the workspace path named in errors. */
export async function openDirAt(dir: FileHandle, name: string, shown: string): Promise<FileHandle> {
  try {
    return await open(at(dir, name), DIR_FLAGS);
  } catch (err) {
    throw await dirError(dir, name, shown, err as NodeJS.ErrnoException);
  }
}

/**
 * Open directory `name` of `dir`, which an lstat has just seen as a directory. Something else there
 * now (a link, a file, nothing) was put in its place meanwhile by the agent: the open's own error
 * (ELOOP, ENOTDIR, ENOENT) is thrown as it is, which the files routes answer as the workspace
 * changed under the request (409), not as a path the request named through a link (400). A link is
 * never followed either way.
 */
export function openSeenDir(dir: FileHandle, name: string): Promise<FileHandle> {
  return open(at(dir, name), DIR_FLAGS);
}

async function dirError(dir: FileHandle, name: string, shown: string, err: NodeJS.ErrnoException): Promise<unknown> {
  if (err.code === 'ENOENT') return notFound(shown);
  if (err.code === 'ELOOP') return throughLink(shown);
  if (err.code === 'ENOTDIR') {
    const st = await lstatAt(dir, name).catch(() => undefined);
    return st?.isSymbolicLink() ? throughLink(shown) : notADirectory(shown);
  }
  return err;
}

/**
 * Walk `segments` down from `root` and answer the last directory open (the caller closes it).
 * With `create`, missing directories are made (mode 0755, given to the owner); a link or a file in
 * the way is refused all the same.
 */
export async function walkDirs(
  root: FileHandle,
  segments: readonly string[],
  /** `made.first`, when given, is set to the index of the first directory this walk made; `made.count` counts those it made. */
  create?: { owner: Owner | undefined; made?: { first?: number; count?: number } },
): Promise<FileHandle> {
  let dir = root;
  try {
    for (let i = 0; i < segments.length; i++) {
      const name = segments[i]!;
      const shown = segments.slice(0, i + 1).join('/');
      if (create && (await mkdirAt(dir, name, create.owner)) && create.made) {
        create.made.first ??= i;
        create.made.count = (create.made.count ?? 0) + 1;
      }
      const next = await openDirAt(dir, name, shown);
      if (dir !== root) await dir.close();
      dir = next;
    }
    return dir;
  } catch (err) {
    if (dir !== root) await dir.close();
    throw err;
  }
}

/**
 * The directory a request names itself (listed, packed as a tar): {@link walkDirs}, except that a
 * link as its last segment is the entry the request names, not a step through one, so it is a
 * `409` (a link, not a directory) where a link on the way is a `400`.
 */
export async function walkToDir(root: FileHandle, segments: readonly string[]): Promise<FileHandle> {
  if (segments.length === 0) return root;
  const parent = await walkDirs(root, segments.slice(0, -1));
  const name = segments.at(-1)!;
  const shown = segments.join('/');
  try {
    return await open(at(parent, name), DIR_FLAGS);
  } catch (err) {
    const st = await lstatAt(parent, name).catch(() => undefined);
    if (st?.isSymbolicLink())
      throw new ApiError(
        'ABX_ERR_FILE_TYPE',
        `workspace entry "${shown}" is a symbolic link, not a directory: links are never followed (its target is in the listing of its directory)`,
      );
    throw await dirError(parent, name, shown, err as NodeJS.ErrnoException);
  } finally {
    if (parent !== root) await parent.close();
  }
}

/** Make directory `name` in `dir` unless something is there (what is there is judged when opened). */
export async function mkdirAt(dir: FileHandle, name: string, owner: Owner | undefined, mode = 0o755): Promise<boolean> {
  try {
    await mkdir(at(dir, name), { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  if (owner) {
    const made = await open(at(dir, name), DIR_FLAGS);
    try {
      await made.chown(owner.uid, owner.gid);
      await made.chmod(mode);
    } finally {
      await made.close();
    }
  }
  return true;
}

/** The 404 for a workspace entry. */
export function notFound(shown: string): ApiError {
  return new ApiError('ABX_ERR_NOT_FOUND', `workspace entry "${shown}" not found`);
}

/** The 409 for a file where a directory is needed. */
export function notADirectory(shown: string): ApiError {
  return new ApiError('ABX_ERR_FILE_TYPE', `workspace entry "${shown}" is not a directory`);
}

/** What an entry is, as listings say it. */
export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export function entryType(st: BigIntStats): EntryType {
  return st.isFile() ? 'file' : st.isDirectory() ? 'dir' : st.isSymbolicLink() ? 'symlink' : 'other';
}

/**
 * Undo what a walk made (`walkDirs`'s `made.first`) for a write that failed: its directories from
 * the deepest up, each only while empty (rmdir), so nothing another writer put there meanwhile
 * goes. Best effort: the first that cannot be removed ends it.
 */
export async function removeMadeDirs(root: FileHandle, segments: readonly string[], first: number | undefined): Promise<void> {
  if (first === undefined) return;
  for (let depth = segments.length; depth > first; depth--) {
    let parent: FileHandle | undefined;
    try {
      parent = await walkDirs(root, segments.slice(0, depth - 1));
      await rmdir(at(parent, segments[depth - 1]!));
    } catch {
      return;
    } finally {
      if (parent && parent !== root) await parent.close();
    }
  }
}

// Where a backup is written or a restore makes its root, as the user named it: refused in words that say what is there, and
// made one level only, in a parent that exists.
import { link, lstat, mkdir, readdir, readlink, realpath, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { BackupError } from './backup-errors.js';

/** What a path that is not a directory is, for a message. */
const kindOf = (info: { isFile(): boolean; isFIFO(): boolean; isSocket(): boolean }): string =>
  info.isFile() ? 'a file' : info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : 'a device';

/** Why a path cannot be looked at, in words (a stack trace said it before). */
function unreachable(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ELOOP') return 'a loop of symbolic links on the way to it';
  if (e.code === 'EACCES') return 'permission denied on the way to it';
  if (e.code === 'ENAMETOOLONG') return 'its name is too long';
  return e.message;
}

/** The nearest ancestor of `p` that exists, and what it is. */
async function nearestExisting(p: string): Promise<{ at: string; isDirectory: boolean; kind: string }> {
  for (let at = path.dirname(p); ; at = path.dirname(at)) {
    const info = await stat(at).catch(() => undefined);
    if (info) return { at, isDirectory: info.isDirectory(), kind: info.isDirectory() ? 'a directory' : kindOf(info) };
    if (at === path.dirname(at)) return { at, isDirectory: true, kind: 'a directory' };
  }
}

/**
 * The place `target` names: itself, or where it leads when it is a symbolic link. Why: the new
 * directory is renamed into place at the end, which replaces a link rather than fill the directory
 * it names (a root linked to a larger disk was written beside the link, on the smaller one). A link
 * that leads nowhere is refused: whether to make its target is the user's to say.
 */
export async function resolveNamed(target: string): Promise<string> {
  const info = await lstat(target).catch(() => undefined);
  if (!info?.isSymbolicLink()) return target;
  try {
    return await realpath(target);
  } catch (err) {
    const to = await readlink(target).catch(() => '?');
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new BackupError(`${target} is a symbolic link to ${to}, which does not exist: make it first, or name another place`);
    throw new BackupError(`${target} is a symbolic link to ${to}, which cannot be followed (${unreachable(err)}): name another place`);
  }
}

/** Whether the directory `dir` is a mount point: on another device than its parent, or the root of all. */
async function isMountPoint(dir: string): Promise<boolean> {
  const [self, parent] = await Promise.all([stat(dir), stat(path.dirname(dir))]);
  return self.dev !== parent.dev || self.ino === parent.ino;
}

/** The words for a mount point named as a new directory. */
const mountPointWords = (target: string): string =>
  `${target} is a mount point, which cannot be replaced by the directory made beside it and renamed into place: name a new directory in it (${path.join(target, 'NAME')})`;

/**
 * Why `target` cannot be made new as `want` (a directory: missing or empty; a file: missing);
 * undefined when it can. Its parent must be a directory that exists: a backup or a restore makes
 * one level only.
 */
export async function whyNotNew(target: string, want: 'directory' | 'file'): Promise<string | undefined> {
  let cannot: string | undefined;
  const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT' && err.code !== 'ENOTDIR') cannot = `${target} cannot be reached (${unreachable(err)})`;
    return undefined;
  });
  if (cannot) return cannot;
  if (info) {
    if (want === 'file') return info.isFile() ? `${target} exists` : `${target} exists (${info.isDirectory() ? 'a directory' : kindOf(info)})`;
    if (!info.isDirectory()) return `${target} is ${kindOf(info)}, not a directory`;
    if ((await readdir(target)).length) return `${target} is not empty`;
    return (await isMountPoint(target)) ? mountPointWords(target) : undefined;
  }
  const parent = path.dirname(target);
  const found = await nearestExisting(target);
  if (!found.isDirectory) return `${target} cannot be made: ${found.at} is ${found.kind}, not a directory`;
  if (found.at !== parent) return `${target} cannot be made: its parent directory ${parent} does not exist (make it first)`;
  return undefined;
}

/**
 * Make the new directory `dir` (its last component only, in a parent that exists); `what` names it
 * in the error. Why not
 * `mkdir -p`: Node 20's recursive mkdir never returns on /proc, where mkdir says ENOENT and the
 * parent, tried again, EEXIST.
 */
export async function makeNewDir(dir: string, mode = 0o700, what = dir): Promise<void> {
  try {
    await mkdir(dir, { mode });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    // The parent exists (whyNotNew said so): ENOENT here is a filesystem that takes no new directories.
    const parent = path.dirname(dir);
    const why =
      e.code === 'ENOENT'
        ? `${parent} takes no new directories (mkdir says ENOENT in it: a virtual filesystem, as /proc is)`
        : e.code === 'EACCES' || e.code === 'EPERM'
          ? `permission denied in ${parent}: name a place this user can write, or run as a user who can write there`
          : e.code === 'EROFS'
            ? `${parent} is on a read-only filesystem: name a place on a writable one`
            : e.message;
    throw new BackupError(`cannot make ${what}: ${why}`);
  }
}

/**
 * Rename the finished `made` to `target`, which must still be missing or, for a directory, empty.
 * Never over anything else: the check before the work is not enough, since another backup or
 * restore (or a box) may have filled `target` since, and what it put there is kept.
 */
export async function moveIntoPlace(made: string, target: string, kind: 'directory' | 'file'): Promise<void> {
  try {
    // rename(2) replaces an empty directory, and fails on one with entries; link(2) never replaces a file.
    if (kind === 'directory') await rename(made, target);
    else {
      await link(made, target);
      await unlink(made);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EBUSY') throw new BackupError(mountPointWords(target));
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR')
      throw new BackupError(`${target} was taken while this ran (something was put there meanwhile): it is left as it is, and nothing of this run is kept`);
    throw err;
  }
}

/**
 * Whether the new `target` (its parent exists) lies inside the directory `dir`, links resolved on
 * both sides. Why: a backup written into the box's state copies itself into itself, level after
 * level, until the name is too long or the disk is full; a restore into a backup directory leaves
 * files there its index does not name, and it never verifies again.
 */
export async function isInside(target: string, dir: string): Promise<boolean> {
  const real = async (p: string) => realpath(p).catch(() => path.resolve(p));
  const [at, within] = await Promise.all([real(path.dirname(target)), real(dir)]);
  const relative = path.relative(within, path.join(at, path.basename(target)));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

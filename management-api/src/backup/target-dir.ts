// Where a backup is written or a restore makes its root, as the user named it: refused in words that say what is there, and
// made one level only, in a parent that exists.
import { mkdir, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { BackupError } from './backup-errors.js';

/** What a path that is not a directory is, for a message. */
const kindOf = (info: { isFile(): boolean; isFIFO(): boolean; isSocket(): boolean }): string =>
  info.isFile() ? 'a file' : info.isFIFO() ? 'a FIFO' : info.isSocket() ? 'a socket' : 'a device';

/** The nearest ancestor of `p` that exists, and what it is. */
async function nearestExisting(p: string): Promise<{ at: string; isDirectory: boolean; kind: string }> {
  for (let at = path.dirname(p); ; at = path.dirname(at)) {
    const info = await stat(at).catch(() => undefined);
    if (info) return { at, isDirectory: info.isDirectory(), kind: info.isDirectory() ? 'a directory' : kindOf(info) };
    if (at === path.dirname(at)) return { at, isDirectory: true, kind: 'a directory' };
  }
}

/**
 * Why `target` cannot be made new as `want` (a directory: missing or empty; a file: missing);
 * undefined when it can. Its parent must be a directory that exists: a backup or a restore makes
 * one level only.
 */
export async function whyNotNew(target: string, want: 'directory' | 'file'): Promise<string | undefined> {
  const info = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return undefined;
    throw err;
  });
  if (info) {
    if (want === 'file') return info.isFile() ? `${target} exists` : `${target} exists (${info.isDirectory() ? 'a directory' : kindOf(info)})`;
    if (!info.isDirectory()) return `${target} is ${kindOf(info)}, not a directory`;
    return (await readdir(target)).length ? `${target} is not empty` : undefined;
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
    const why = e.code === 'ENOENT' ? `${path.dirname(dir)} takes no new directories (mkdir says ENOENT in it: a virtual filesystem, as /proc is)` : e.message;
    throw new BackupError(`cannot make ${what}: ${why}`);
  }
}

// What goes wrong making, checking or restoring a backup, said so that the message names the file.
import { readdir } from 'node:fs/promises';

/** A backup that cannot be made, checked or restored; the message names the file and the fix. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** Why a write failed, in words that name the file (a full disk above all). */
export function ioFailure(err: unknown, what: string): BackupError {
  const e = err as NodeJS.ErrnoException;
  // SQLite's online backup says SQLITE_FULL where a plain write says ENOSPC: which one a full disk
  // meets depends on how far the copy got, and both are the same fault to the operator.
  if (e.code === 'ENOSPC' || e.code === 'SQLITE_FULL')
    return new BackupError(`no space left on the device while writing ${what}: free some space or back up elsewhere (--to)`);
  if (e.code === 'EDQUOT') return new BackupError(`the disk quota is exhausted while writing ${what}`);
  return new BackupError(`${what}: ${e.message}`);
}

/** Whether `dir` is missing or an empty directory. */
export async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if ((err as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw err;
  }
}

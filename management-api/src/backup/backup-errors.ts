// What goes wrong making, checking or restoring a backup, said so that the message names the file.
import { statfs } from 'node:fs/promises';

/** A backup that cannot be made, checked or restored; the message names the file and the fix. */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** What a backup's full disk asks of the operator; a restore or an unpacking says its own. */
const BACKUP_ROOM = 'free some space or back up elsewhere (--to)';

/** Why a write failed, in words that name the file (a full disk above all); `room` says what to do about a full one. */
function ioFailure(err: unknown, what: string, room: string): BackupError {
  const e = err as NodeJS.ErrnoException;
  // SQLite's online backup says SQLITE_FULL where a plain write says ENOSPC: which one a full disk
  // meets depends on how far the copy got, and both are the same fault to the operator.
  if (e.code === 'ENOSPC' || e.code === 'SQLITE_FULL') return noSpace(what, room);
  if (e.code === 'EDQUOT') return new BackupError(`the disk quota is exhausted while writing ${what}`);
  return new BackupError(`${what}: ${e.message}`);
}

/** Free bytes under which an I/O error writing into a filesystem is taken for its being full. */
const NEARLY_FULL_BYTES = 1024 * 1024;

/**
 * ioFailure, with an I/O error told apart as a full disk when `dir`'s filesystem has next to no
 * room left (call it before removing what was written). Why: SQLite does not always say
 * SQLITE_FULL on a full disk. Opening a copy whose header says WAL maps its -shm file, and when
 * that file cannot grow SQLite says SQLITE_IOERR_SHMSIZE, "disk I/O error": on a disk filled by
 * the copy, the same fault as any other full disk to the operator.
 */
export async function writeFailure(err: unknown, what: string, dir: string, room = BACKUP_ROOM): Promise<BackupError> {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if ((code === 'EIO' || code.startsWith('SQLITE_IOERR')) && (await freeBytes(dir)) < NEARLY_FULL_BYTES) return noSpace(what, room);
  return ioFailure(err, what, room);
}

async function freeBytes(dir: string): Promise<number> {
  try {
    const fs = await statfs(dir);
    return fs.bavail * fs.bsize;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function noSpace(what: string, room: string): BackupError {
  return new BackupError(`no space left on the device while writing ${what}: ${room}`);
}

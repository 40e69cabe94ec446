// Durable file replacement: write a temporary file, fsync it, rename it into place, fsync the directory.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { syncDirectory } from '../../durable-fs.js';
import { RESERVED_PREFIX } from './pod-path.js';

/** Prefix of temporary files; reserved names are hidden from listings and cleaned up. */
export const TMP_PREFIX = `${RESERVED_PREFIX}tmp-`;

/** A written, synced temporary file waiting to be renamed into place. */
export interface StagedFile {
  tmpPath: string;
  /** Inode of the staged file: it keeps it across the rename, which ties a sidecar to its data. */
  ino: number;
  size: number;
  mtime: Date;
}

/** Write `data` to a new temporary file in `dir` and fsync it. Nothing is visible under a real name yet. */
export async function stage(dir: string, data: Uint8Array | string): Promise<StagedFile> {
  const tmpPath = path.join(dir, `${TMP_PREFIX}${randomBytes(8).toString('hex')}`);
  // O_EXCL + O_NOFOLLOW: never write through something planted under the temporary name.
  const handle = await open(tmpPath, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(data);
    await handle.sync();
    const stat = await handle.stat();
    await handle.close();
    return { tmpPath, ino: stat.ino, size: stat.size, mtime: stat.mtime };
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(tmpPath).catch(() => undefined);
    throw err;
  }
}

/** Rename staged files into place (in order) and fsync their directory, so the renames survive a crash. */
export async function commit(dir: string, moves: ReadonlyArray<{ staged: StagedFile; target: string }>): Promise<void> {
  for (const { staged, target } of moves) await rename(staged.tmpPath, target);
  await syncDirectory(dir);
}

/** Remove a staged file that will not be committed. */
export async function discard(staged: StagedFile | undefined): Promise<void> {
  if (staged) await unlink(staged.tmpPath).catch(() => undefined);
}

/** Remove temporary files a crash left in `dir` (they were never committed, so nothing is lost). */
export async function removeLeftovers(dir: string): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    if (!name.startsWith(TMP_PREFIX)) continue;
    await unlink(path.join(dir, name)).catch(() => undefined);
    removed++;
  }
  return removed;
}

// The index of a backup: every file's size, SHA-256 and mode, each file fsynced as it is hashed,
// so an index on disk never names a file whose bytes are not.
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE, SIGNATURE_FILE, type BackupFile } from './backup-format.js';
import { KEPT_MODE } from './copy-files.js';
import { openRegularFile } from './regular-file.js';

/** The SHA-256 (hex) and size of a regular file, optionally fsyncing it; a link (never followed) or any other kind of file is refused. */
export async function digestFile(file: string, sync = false): Promise<{ sha256: string; bytes: number }> {
  const opened = await openRegularFile(file);
  if ('refused' in opened)
    throw new NotAFileError(
      opened.refused === 'a symbolic link'
        ? `${file} is a symbolic link, not a file: a backup holds files only`
        : `${file} is not a regular file: a backup holds files only`,
    );
  const { handle } = opened;
  try {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of handle.createReadStream({ autoClose: false })) {
      hash.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    if (sync) await handle.sync();
    return { sha256: hash.digest('hex'), bytes };
  } finally {
    await handle.close();
  }
}

/** A backup's entry that is no regular file (a link, a FIFO, a device). */
export class NotAFileError extends Error {}

/**
 * Every entry under `dir` but the index and directories, as `/`-separated relative paths, sorted:
 * regular files, and anything else (links, FIFOs), so a check sees every name the index does not.
 * Links are listed, never followed.
 */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((p) => p !== INDEX_FILE && p !== SIGNATURE_FILE)
    .sort();
}

/** Hash, fsync and describe every file under `dir` (the index's `files`). */
export async function indexFiles(dir: string): Promise<BackupFile[]> {
  const files: BackupFile[] = [];
  for (const rel of await listFiles(dir)) {
    const file = path.join(dir, rel);
    const { sha256, bytes } = await digestFile(file, true);
    files.push({ path: rel, bytes, sha256, mode: (await stat(file)).mode & KEPT_MODE });
  }
  return files;
}

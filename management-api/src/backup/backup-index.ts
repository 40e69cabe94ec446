// The index of a backup: every file's size, SHA-256 and mode, each file fsynced as it is hashed,
// so an index on disk never names a file whose bytes are not.
import { createHash } from 'node:crypto';
import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { INDEX_FILE, type BackupFile } from './backup-format.js';
import { KEPT_MODE } from './copy-files.js';

/** The SHA-256 (hex) and size of a file, optionally fsyncing it. */
export async function digestFile(file: string, sync = false): Promise<{ sha256: string; bytes: number }> {
  const handle = await open(file, 'r');
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

/** Every regular file under `dir` but the index, as `/`-separated relative paths, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((p) => p !== INDEX_FILE)
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

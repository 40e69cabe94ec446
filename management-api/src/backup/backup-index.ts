// The index of a backup: every file's size, SHA-256 and mode, every file made durable first, so an
// index on disk never names a file whose bytes are not.
import { execFile } from 'node:child_process';
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

/**
 * Hash and describe every file under `dir` (the index's `files`), and make them durable before the
 * index names them: one sync of the filesystem (`sync --file-system`, syncfs(2)) rather than an
 * fsync per file, whose thousands of journal commits would stall the box's own (its event log's
 * group commit waits on the same journal). Where that command is missing, each file is fsynced.
 */
export async function indexFiles(dir: string): Promise<BackupFile[]> {
  const synced = await syncFileSystem(dir);
  const files: BackupFile[] = [];
  for (const rel of await listFiles(dir)) {
    const file = path.join(dir, rel);
    const { sha256, bytes } = await digestFile(file, !synced);
    files.push({ path: rel, bytes, sha256, mode: (await stat(file)).mode & KEPT_MODE });
  }
  return files;
}

/** syncfs(2) of the filesystem holding `dir`, through coreutils; false when it could not be run. */
function syncFileSystem(dir: string): Promise<boolean> {
  return new Promise((resolve) => execFile('sync', ['--file-system', dir], { timeout: 600_000 }, (err) => resolve(!err)));
}

/** fsync a directory, so the names in it (a rename, a new file) survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

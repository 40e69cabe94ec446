// A small file of a backup read whole for a restore (the sealed secrets), checked in that same read
// against its index entry: what a restore opens is what the checked (and signed) index vouches for,
// even when the backup directory is written to after the check.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { INDEX_FILE, type BackupIndex } from './backup-format.js';
import { BackupError } from './backup-errors.js';
import { openRegularFile } from './regular-file.js';

/** The bytes of `rel` (a `/`-separated path in the backup `dir`), refused unless they are its index entry's. */
export async function readChecked(dir: string, rel: string, index: BackupIndex, shown: (text: string) => string): Promise<Buffer> {
  const file = path.join(dir, ...rel.split('/'));
  const entry = index.files.find((f) => f.path === rel);
  // The index says secrets are sealed but lists no file of them: verify saw no such file either.
  if (!entry) throw new BackupError(`${shown(file)} is not in the index ${shown(path.join(dir, INDEX_FILE))}: the backup was changed`);
  const changed = (how: string) =>
    new BackupError(`${shown(file)} ${how} since the backup was checked: it was written to during the restore; restore from a copy nothing writes to`);
  const opened = await openRegularFile(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw changed('was removed');
    throw err;
  });
  if ('refused' in opened) throw changed(opened.refused === 'a symbolic link' ? 'became a symbolic link' : 'is no longer a regular file');
  const { handle, size } = opened;
  try {
    // No more than the index says is read: a file grown since the check is refused before it fills memory.
    if (size !== entry.bytes) throw changed('changed');
    const bytes = await handle.readFile();
    if (bytes.length !== entry.bytes || createHash('sha256').update(bytes).digest('hex') !== entry.sha256) throw changed('changed');
    return bytes;
  } finally {
    await handle.close();
  }
}

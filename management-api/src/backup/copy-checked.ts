// A backup's file copied into a restore (hashed in the same read and fsynced) or read whole (the sealed secrets,
// checked in that read): the bytes restored are the bytes the index vouches for, even when the backup directory is
// written to between the check and the use (a file changed, or swapped for a link to a file of the host's), and a
// restore renamed into place holds them on disk.
import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import type { BackupFile } from './backup-format.js';
import { BackupError } from './backup-errors.js';
import { writeAll } from '../durable-fs.js';
import { openRegularFile } from './regular-file.js';

/** Bytes read and written at a time. */
const STEP_BYTES = 1024 * 1024;

/** A backup's file opened again for its use, with the error that says it changed since the check. */
async function openChecked(
  from: string,
  shown: (text: string) => string,
): Promise<{ handle: FileHandle; size: number; changed: (how: string) => BackupError }> {
  const changed = (how: string) =>
    new BackupError(`${shown(from)} ${how} since the backup was checked: it was written to during the restore; restore from a copy nothing writes to`);
  const opened = await openRegularFile(from).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw changed('was removed');
    throw err;
  });
  if ('refused' in opened) throw changed(opened.refused === 'a symbolic link' ? 'became a symbolic link' : 'is no longer a regular file');
  return { ...opened, changed };
}

/** The bytes of `from`, read whole, refused unless they are `entry`'s. */
export async function readChecked(from: string, entry: BackupFile, shown: (text: string) => string): Promise<Buffer> {
  const { handle, size, changed } = await openChecked(from, shown);
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

/** Copy `from` to the new file `to` (0600; its mode is set after), refusing bytes that are not `entry`'s. */
export async function copyChecked(from: string, to: string, entry: BackupFile, shown: (text: string) => string): Promise<void> {
  const { handle: source, changed } = await openChecked(from, shown);
  try {
    const target = await open(to, 'wx', 0o600);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      // Plain reads and writes on the two handles: a stream over a handle it does not close never says it is done.
      const buf = Buffer.alloc(STEP_BYTES);
      for (;;) {
        const { bytesRead } = await source.read(buf, 0, buf.length, null);
        if (bytesRead === 0) break;
        const chunk = buf.subarray(0, bytesRead);
        hash.update(chunk);
        bytes += bytesRead;
        await writeAll(target, chunk);
      }
      await target.sync();
    } finally {
      await target.close();
    }
    if (bytes !== entry.bytes || hash.digest('hex') !== entry.sha256) throw changed('changed');
  } finally {
    await source.close();
  }
}

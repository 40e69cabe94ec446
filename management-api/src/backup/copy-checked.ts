// A backup's file copied into a restore, hashed in the same read and fsynced: the bytes restored are the
// bytes the index vouches for, even when the backup directory is written to between the check and the copy
// (a file changed, or swapped for a link to a file of the host's), and a restore renamed into place holds them on disk.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { BackupFile } from './backup-format.js';
import { BackupError } from './backup-errors.js';
import { writeAll } from '../durable-fs.js';
import { openRegularFile } from './regular-file.js';

/** Bytes read and written at a time. */
const STEP_BYTES = 1024 * 1024;

/** Copy `from` to the new file `to` (0600; its mode is set after), refusing bytes that are not `entry`'s. */
export async function copyChecked(from: string, to: string, entry: BackupFile, shown: (text: string) => string): Promise<void> {
  const changed = (how: string) =>
    new BackupError(`${shown(from)} ${how} since the backup was checked: it was written to during the restore; restore from a copy nothing writes to`);
  const opened = await openRegularFile(from).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw changed('was removed');
    throw err;
  });
  if ('refused' in opened) throw changed(opened.refused === 'a symbolic link' ? 'became a symbolic link' : 'is no longer a regular file');
  const source = opened.handle;
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

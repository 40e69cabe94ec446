// A backup's file opened as a regular file only: a link is never followed, a FIFO never waited on,
// a device or a file past a bound never read. Every reader of a backup opens its files this way.
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';

/** Why a file was not opened: what it is instead. */
export type NotRegular = 'a symbolic link' | 'not a regular file' | 'too large';

/**
 * `file` open for reading, with its size, when it is a regular file of at most `maxBytes`; else
 * what it is. O_NOFOLLOW refuses a link (a backup written by someone else may point anywhere on the
 * host), O_NONBLOCK keeps a FIFO in a file's place from hanging the open. Other errors (ENOENT, EACCES)
 * are thrown as they are, for the caller to name.
 */
export async function openRegularFile(
  file: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<{ handle: FileHandle; size: number } | { refused: NotRegular }> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ELOOP') return undefined;
    throw err;
  });
  if (!handle) return { refused: 'a symbolic link' };
  let refused: NotRegular | undefined;
  try {
    const info = await handle.stat();
    if (!info.isFile()) refused = 'not a regular file';
    else if (info.size > maxBytes) refused = 'too large';
    else return { handle, size: info.size };
  } catch (err) {
    await handle.close();
    throw err;
  }
  await handle.close();
  return { refused };
}

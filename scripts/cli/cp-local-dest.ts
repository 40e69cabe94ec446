// Where a download lands on this machine: what the destination already is decides how it is written (replaced, written into, or refused).
import type { Stats } from 'node:fs';
import { lstat, readlink, realpath, stat } from 'node:fs/promises';
import { UserError } from './cli-errors.js';

/**
 * How a downloaded file reaches its destination. `replace`: a new name or a regular file, written
 * beside it and renamed over it (an interrupted copy never leaves half a file under the name).
 * `into`: a FIFO or a character device, opened for writing as cp and curl -o do; a file renamed
 * over one would replace the device or the pipe itself (/dev/null made a regular file).
 * `path` is where it is written: a link's target, the link itself left as it is.
 */
export interface FileLanding {
  how: 'replace' | 'into';
  path: string;
}

/** How a file downloaded to `file` is written; a link is written through, as cp does, unless it leads nowhere. */
export async function fileLanding(file: string): Promise<FileLanding> {
  const st = await lstat(file).catch(missing);
  if (!st) return { how: 'replace', path: file };
  if (st.isSymbolicLink()) {
    const real = await realpath(file).catch(async (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw new UserError(`${file}: ${err.message}`, 1);
      // As GNU cp: a dangling link's target is not made, it may not be where the user thinks.
      throw new UserError(
        `${file} is a symbolic link to ${await readlink(file)}, which does not exist; a download is not written through a dangling link: remove the link, or give the path it should lead to`,
        1,
      );
    });
    return fileLanding(real);
  }
  if (st.isFile()) return { how: 'replace', path: file };
  if (st.isFIFO() || st.isCharacterDevice()) return { how: 'into', path: file };
  throw new UserError(`${file} is ${typeOf(st)}; a file is downloaded to a file, a new name, a directory, a FIFO or a character device`, 1);
}

/** What the entry at `p` is, a link followed ("a character device", "a FIFO"…), for a message; undefined when nothing is there. */
export async function describeLocal(p: string): Promise<string | undefined> {
  const st = await lstat(p).catch(missing);
  if (!st) return undefined;
  if (!st.isSymbolicLink()) return typeOf(st);
  const followed = await stat(p).catch(missing);
  return followed ? typeOf(followed) : `a symbolic link to ${await readlink(p)}, which does not exist`;
}

function typeOf(st: Stats): string {
  if (st.isFile()) return 'a file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'neither a file nor a directory';
}

/** Nothing there (ENOENT) as undefined; any other error as it is. */
function missing(err: NodeJS.ErrnoException): undefined {
  if (err.code === 'ENOENT') return undefined;
  throw err;
}

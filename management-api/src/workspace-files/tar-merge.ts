// The last step of a tar upload: the staged tree checked against the target, then moved in, each entry by one rename.
import { rename, type FileHandle } from 'node:fs/promises';
import { readdirNames } from '../fs-names.js';
import { ApiError } from '../errors.js';
import { at, lstatAt, openSeenDir } from './dir-fd.js';

/** Before anything moves: a staged directory must meet a directory or nothing, a staged file or link never a directory. */
export async function checkMerge(src: FileHandle, dst: FileHandle, shown: string): Promise<void> {
  for (const name of await readdirNames(at(src, '.'))) {
    const here = shown ? `${shown}/${name}` : name;
    const s = await lstatAt(src, name);
    const d = await lstatAt(dst, name);
    if (!s || !d) continue;
    if (s.isDirectory() !== d.isDirectory())
      throw new ApiError(
        'ABX_ERR_FILE_TYPE',
        `"${here}" is a ${s.isDirectory() ? 'directory' : 'file'} in the tar but ${d.isDirectory() ? 'a directory' : d.isSymbolicLink() ? 'a link' : 'a file'} in the workspace; nothing was written`,
      );
    if (s.isDirectory()) {
      const [ss, dd] = [await openSeenDir(src, name), await openSeenDir(dst, name)];
      try {
        await checkMerge(ss, dd, here);
      } finally {
        await ss.close();
        await dd.close();
      }
    } else if (!d.isFile() && !d.isSymbolicLink()) throw new ApiError('ABX_ERR_FILE_TYPE', `"${here}" is a special file in the workspace; nothing was written`);
  }
}

/**
 * Move staged entries into place, each by one rename (a file or link replaces its namesake; directories
 * merge). An entry the agent changed since checkMerge fails the rename or the open with its errno
 * (ENOTDIR, EISDIR, ELOOP), answered by the route as a 409; nothing moves through a link.
 */
export async function merge(src: FileHandle, dst: FileHandle): Promise<void> {
  for (const name of await readdirNames(at(src, '.'))) {
    const s = await lstatAt(src, name);
    const d = await lstatAt(dst, name);
    if (s?.isDirectory() && d?.isDirectory()) {
      const [ss, dd] = [await openSeenDir(src, name), await openSeenDir(dst, name)];
      try {
        await merge(ss, dd);
      } finally {
        await ss.close();
        await dd.close();
      }
      continue;
    }
    await rename(at(src, name), at(dst, name));
  }
}

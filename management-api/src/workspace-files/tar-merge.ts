// The last step of a tar upload: the staged tree checked against the target, then moved in, each entry by one rename, its listings read as they go and no further than the upload wrote.
import { renameSync } from 'node:fs';
import { opendir, type FileHandle } from 'node:fs/promises';
import { BYTE_NAMES, nameOf } from '../fs-names.js';
import { ApiError } from '../errors.js';
import { ThreadSlices } from '../thread-slices.js';
import { at, lstatAtSync, openSeenDir } from './dir-fd.js';

/**
 * How many staged names a step may still read: the entries the upload wrote (and the directories
 * it made for their paths). The staging directory is the box's (0700), but where agents share the
 * box's uid (its container) an agent can add names to it while the upload runs: without a bound,
 * a step would read every name it was given, millions, for as long as the agent makes them.
 */
export interface StagedBound {
  left: number;
}

/**
 * The names of the staged directory `src`, read a few hundred at a time (a name that is not UTF-8
 * as its bytes), each counted against `bound`. What the caller does with each name (lstat, rename)
 * is a synchronous call: the names are given in slices of the API's thread (thread-slices.ts).
 */
async function* stagedNames(src: FileHandle, bound: StagedBound, after: string): AsyncGenerator<string> {
  const slices = new ThreadSlices();
  const listing = await opendir(at(src, '.'), { bufferSize: 256, ...BYTE_NAMES });
  // Leaving either loop, by its end or a throw, closes the listing.
  for await (const entry of listing) {
    if (--bound.left < 0)
      throw new ApiError(
        'ABX_ERR_CONFLICT',
        `the upload's staging directory holds more entries than the tar wrote: something wrote into it while the upload ran; ${after}`,
      );
    await slices.pause();
    yield nameOf(entry);
  }
}

/** Before anything moves: a staged directory must meet a directory or nothing, a staged file or link never a directory. */
export async function checkMerge(src: FileHandle, dst: FileHandle, shown: string, bound: StagedBound): Promise<void> {
  for await (const name of stagedNames(src, bound, 'nothing was written')) {
    const here = shown ? `${shown}/${name}` : name;
    const s = lstatAtSync(src, name);
    const d = lstatAtSync(dst, name);
    if (!s || !d) continue;
    if (s.isDirectory() !== d.isDirectory())
      throw new ApiError(
        'ABX_ERR_FILE_TYPE',
        `"${here}" is a ${s.isDirectory() ? 'directory' : 'file'} in the tar but ${d.isDirectory() ? 'a directory' : d.isSymbolicLink() ? 'a link' : 'a file'} in the workspace; nothing was written`,
      );
    if (s.isDirectory()) {
      const [ss, dd] = [await openSeenDir(src, name), await openSeenDir(dst, name)];
      try {
        await checkMerge(ss, dd, here, bound);
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
 * (ENOTDIR, EISDIR, ELOOP), answered by the route as a 409; nothing moves through a link. Renaming
 * names out of a directory being read leaves every other name to be read once (POSIX readdir).
 */
export async function merge(src: FileHandle, dst: FileHandle, bound: StagedBound): Promise<void> {
  for await (const name of stagedNames(src, bound, 'what was moved into place before it stays')) {
    const s = lstatAtSync(src, name);
    const d = lstatAtSync(dst, name);
    if (s?.isDirectory() && d?.isDirectory()) {
      const [ss, dd] = [await openSeenDir(src, name), await openSeenDir(dst, name)];
      try {
        await merge(ss, dd, bound);
      } finally {
        await ss.close();
        await dd.close();
      }
      continue;
    }
    renameSync(at(src, name), at(dst, name));
  }
}

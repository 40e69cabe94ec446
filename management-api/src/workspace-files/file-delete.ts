// Deleting from a workspace: a file, a link (never its target), an empty directory, or with recursive a tree walked by descriptors.
import { constants } from 'node:fs';
import { chmod, open, rmdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, notFound, openSeenDir, walkDirs } from './dir-fd.js';
import { readdirNames } from '../fs-names.js';
import { MAX_TREE_DEPTH, treeTooDeep } from './tree-depth.js';

/**
 * Remove `segments`. A symbolic link is removed itself. A directory needs `recursive` unless
 * empty; the walk opens each subdirectory with O_NOFOLLOW from its parent's descriptor, so a link
 * planted in the tree (or a directory swapped for one mid-walk) is unlinked, never descended into.
 */
export async function removePath(ws: Workspace, segments: readonly string[], recursive: boolean): Promise<{ removed: number }> {
  const shown = segments.join('/');
  if (segments.length === 0) throw new ApiError('ABX_ERR_FILE_PATH', 'the workspace itself is not deleted; delete what is in it');
  const dir = await walkDirs(ws.root, segments.slice(0, -1));
  try {
    const name = segments.at(-1)!;
    const st = await lstatAt(dir, name);
    if (!st) throw notFound(shown);
    if (!st.isDirectory()) {
      await unlink(at(dir, name));
      return { removed: 1 };
    }
    if (!recursive) {
      try {
        await rmdir(at(dir, name));
        return { removed: 1 };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOTEMPTY')
          throw new ApiError('ABX_ERR_FILE_TYPE', `workspace directory "${shown}" is not empty: delete it with ?recursive`);
        throw err;
      }
    }
    return { removed: await removeTree(dir, name, shown, { depth: segments.length }) };
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}

/**
 * Remove directory `name` of `parent` and everything in it; answers the entries removed. `depth`
 * is how many levels below the workspace `name` is (0 for a directory the box made for itself):
 * each level holds a descriptor while the levels below it go, in the descriptor table every
 * request shares, so a directory more than MAX_TREE_DEPTH levels down is refused (413) as the
 * box's other walks refuse one, and a chain of thousands an agent made cannot take every
 * descriptor the box has. What was removed before it was met stays removed, as with `rm -r`.
 * With `unseal`, each directory its owner may not read, write or enter (an agent's `chmod 555`,
 * Go's module cache, a snapshot's read-only directory built back) is given u+rwx first: the box's
 * own trees (a restore's replaced directory, a build, an upload's staging) are removed whatever
 * modes were left in them, where a box that is not root, like `rm -rf`, could not remove what
 * such a directory holds.
 */
export async function removeTree(parent: FileHandle, name: string, shown: string, options: { depth?: number; unseal?: boolean } = {}): Promise<number> {
  const { depth = 0, unseal = false } = options;
  if (depth > MAX_TREE_DEPTH) throw new ApiError('ABX_ERR_FILE_TOO_LARGE', treeTooDeep(shown, 'to delete through the API').message);
  if (unseal) await unsealDir(parent, name);
  // Every caller has just seen a directory there (a DELETE's lstat, the walk below, the box's own trees).
  const dir = await openSeenDir(parent, name);
  let removed = 0;
  try {
    // Names as bytes where they are not UTF-8 (fs-names.ts): each is removed, not left to fail the rmdir.
    for (const child of await readdirNames(at(dir, '.'))) {
      const st = await lstatAt(dir, child);
      if (!st) continue;
      if (st.isDirectory()) removed += await removeTree(dir, child, `${shown}/${child}`, { depth: depth + 1, unseal });
      else {
        await unlink(at(dir, child));
        removed++;
      }
    }
  } finally {
    await dir.close();
  }
  await rmdir(at(parent, name));
  return removed + 1;
}

/** Linux's O_PATH (not in Node's constants): a descriptor of the inode itself, opened without any right to it. */
const O_PATH = 0o10000000;

/**
 * Give directory `name` of `parent` u+rwx when it lacks any of them. It is opened O_PATH without
 * following a link (so a link swapped in is never followed: the open fails, and openSeenDir says
 * why), and changed through that descriptor's /proc entry, which leads to the inode opened.
 * Nothing done when it is not the box's to change (openSeenDir or the unlink then fails as before).
 */
async function unsealDir(parent: FileHandle, name: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(at(parent, name), O_PATH | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return;
  }
  try {
    const { mode } = await handle.stat();
    if ((mode & 0o700) !== 0o700) await chmod(`/proc/self/fd/${handle.fd}`, (mode & 0o7777) | 0o700);
  } catch {
    // Another owner's (EPERM): left as it is.
  } finally {
    await handle.close();
  }
}

// Deleting from a workspace: a file, a link (never its target), an empty directory, or with recursive a tree walked by descriptors.
import { rmdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, notFound, openDirAt, walkDirs } from './dir-fd.js';
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
    return { removed: await removeTree(dir, name, shown, segments.length) };
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
 */
export async function removeTree(parent: FileHandle, name: string, shown: string, depth = 0): Promise<number> {
  if (depth > MAX_TREE_DEPTH) throw new ApiError('ABX_ERR_FILE_TOO_LARGE', treeTooDeep(shown, 'to delete through the API').message);
  const dir = await openDirAt(parent, name, shown);
  let removed = 0;
  try {
    // Names as bytes where they are not UTF-8 (fs-names.ts): each is removed, not left to fail the rmdir.
    for (const child of await readdirNames(at(dir, '.'))) {
      const st = await lstatAt(dir, child);
      if (!st) continue;
      if (st.isDirectory()) removed += await removeTree(dir, child, `${shown}/${child}`, depth + 1);
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

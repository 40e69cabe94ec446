// Deleting from a workspace: a file, a link (never its target), an empty directory, or with recursive a tree walked by descriptors and removed as it is read.
import { constants, unlinkSync } from 'node:fs';
import { chmod, open, opendir, rmdir, unlink } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, lstatAtSync, notFound, openSeenDir, walkDirs } from './dir-fd.js';
import { BYTE_NAMES, nameOf } from '../fs-names.js';
import { ThreadSlices } from '../thread-slices.js';
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

/** Entries a removal reads of a directory at a time (the listing's buffer): what it holds of one however many it has. */
export const REMOVE_BATCH = 256;

/**
 * Times one directory is read through before its rmdir must succeed: a pass removes what it reads,
 * and a name added behind its position (a writer still at work in the tree) is met by the next.
 */
export const MAX_REMOVE_PASSES = 4;

/**
 * Entries changed since a removal began (their ctime: made, linked or renamed in since) that it
 * removes beyond as many as were there before. A running agent can add names to a directory as fast
 * as they are removed, and a listing read while names are added may never end: past this, the
 * removal stops (409) instead of working for as long as the agent keeps writing.
 */
export const LATE_ENTRIES_FLOOR = 10_000;

/**
 * A file with more blocks allocated than this (512-byte blocks: 1 MiB) is unlinked on the thread
 * pool: freeing many blocks can take the kernel long enough to matter to a slice.
 */
const SYNC_UNLINK_MAX_BLOCKS = 2048n;

/** One removal's state, shared by the levels of its tree. */
interface Removal {
  /** When it began, in the nanoseconds file times are stamped in. */
  readonly startedNs: bigint;
  readonly unseal: boolean;
  /** Entries removed that were there before it began. */
  early: number;
  /** Entries removed that were made or changed since it began. */
  late: number;
  /** Each entry's lstat and unlink are synchronous calls, made in slices (thread-slices.ts). */
  readonly slices: ThreadSlices;
}

/**
 * Remove directory `name` of `parent` and everything in it; answers the entries removed. `depth`
 * is how many levels below the workspace `name` is (0 for a directory the box made for itself):
 * each level holds a descriptor (and its listing's) while the levels below it go, in the
 * descriptor table every request shares, so a directory more than MAX_TREE_DEPTH levels down is
 * refused (413) as the box's other walks refuse one, and a chain of thousands an agent made cannot
 * take every descriptor the box has. What was removed before it was met stays removed, as with `rm -r`.
 * With `unseal`, each directory its owner may not read, write or enter (an agent's `chmod 555`,
 * Go's module cache, a snapshot's read-only directory built back) is given u+rwx first: the box's
 * own trees (a restore's replaced directory, a build, an upload's staging) are removed whatever
 * modes were left in them, where a box that is not root, like `rm -rf`, could not remove what
 * such a directory holds.
 *
 * Each directory is read as a stream, REMOVE_BATCH names at a time, each entry removed as it is
 * read: a directory of millions of names (an agent's to make) costs the box time, never memory in
 * proportion. A directory still not empty after MAX_REMOVE_PASSES, or more entries made during the
 * removal than LATE_ENTRIES_FLOOR beyond those there before, fails it with ENOTEMPTY, which the
 * files routes answer 409 (the workspace changed while the request ran).
 */
export async function removeTree(parent: FileHandle, name: string, shown: string, options: { depth?: number; unseal?: boolean } = {}): Promise<number> {
  const removal: Removal = { startedNs: BigInt(Date.now()) * 1_000_000n, unseal: options.unseal ?? false, early: 1, late: 0, slices: new ThreadSlices() };
  await removeDir(parent, name, shown, options.depth ?? 0, removal);
  return removal.early + removal.late;
}

async function removeDir(parent: FileHandle, name: string, shown: string, depth: number, removal: Removal): Promise<void> {
  if (depth > MAX_TREE_DEPTH) throw new ApiError('ABX_ERR_FILE_TOO_LARGE', treeTooDeep(shown, 'to delete through the API').message);
  if (removal.unseal) await unsealDir(parent, name);
  // Every caller has just seen a directory there (a DELETE's lstat, the walk below, the box's own trees).
  const dir = await openSeenDir(parent, name);
  try {
    for (let pass = 1; ; pass++) {
      await removeListed(dir, shown, depth, removal);
      try {
        // Linux removes a directory still open; its descriptor then lists nothing.
        await rmdir(at(parent, name));
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOTEMPTY' || pass >= MAX_REMOVE_PASSES) throw err;
      }
    }
  } finally {
    await dir.close();
  }
}

/** One pass over the directory open as `dir`: each entry removed as its name is read (deleting behind a listing is allowed; it goes on from where it was). */
async function removeListed(dir: FileHandle, shown: string, depth: number, removal: Removal): Promise<void> {
  // Names as bytes where they are not UTF-8 (fs-names.ts): each is removed, not left to fail the rmdir.
  const listing = await opendir(at(dir, '.'), { bufferSize: REMOVE_BATCH, ...BYTE_NAMES });
  // Leaving the loop, by its end or a throw, closes the listing.
  for await (const entry of listing) {
    const child = nameOf(entry);
    const st = lstatAtSync(dir, child);
    if (!st) continue;
    if (st.ctimeNs < removal.startedNs) removal.early++;
    else if (++removal.late > removal.early + LATE_ENTRIES_FLOOR) throw keptAdding(shown, removal);
    if (st.isDirectory()) await removeDir(dir, child, `${shown}/${child}`, depth + 1, removal);
    else if (st.blocks > SYNC_UNLINK_MAX_BLOCKS) await unlink(at(dir, child));
    else unlinkSync(at(dir, child));
    await removal.slices.pause();
  }
}

/** The removal's end when the tree keeps being written: the errno of a directory that would not empty. */
function keptAdding(shown: string, removal: Removal): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(
    `"${shown}" kept gaining entries while it was removed (${removal.late} made since the removal began, ${removal.early} there before): stopped; what was removed stays removed`,
  );
  err.code = 'ENOTEMPTY';
  return err;
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

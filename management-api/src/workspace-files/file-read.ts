// Reading a workspace: one entry's metadata, a directory listing, a regular file opened for streaming (links, FIFOs and devices refused).
import type { BigIntStats, PathLike } from 'node:fs';
import { open, opendir, type FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { BYTE_NAMES, nameOf, readlinkName } from '../fs-names.js';
import { ThreadSlices } from '../thread-slices.js';
import { at, entryType, FILE_READ_FLAGS, lstatAt, lstatAtSync, notFound, walkDirs, walkToDir, type EntryType } from './dir-fd.js';

/** One entry of a listing. */
export interface FileEntry {
  name: string;
  type: EntryType;
  size: number;
  /** Permission bits, octal as a string (`0644`). */
  mode: string;
  mtime: string;
  /** A symbolic link's target, as data: it is never followed. */
  target?: string;
}

/** The most entries one listing answers; a larger directory says it was cut. */
export const MAX_LIST_ENTRIES = 10_000;

/** An ETag from what changes when the file does (inode, size, modification time in nanoseconds). */
export function etagOf(st: BigIntStats): string {
  return `"${st.ino.toString(36)}-${st.size.toString(36)}-${st.mtimeNs.toString(36)}"`;
}

export const modeString = (st: BigIntStats): string => `0${(Number(st.mode) & 0o7777).toString(8).padStart(3, '0')}`;

/** The entry at `segments` (the workspace itself when empty), without following a link. */
export async function statPath(ws: Workspace, segments: readonly string[]): Promise<BigIntStats> {
  if (segments.length === 0) return ws.root.stat({ bigint: true });
  const dir = await walkDirs(ws.root, segments.slice(0, -1));
  try {
    const st = await lstatAt(dir, segments.at(-1)!);
    if (!st) throw notFound(segments.join('/'));
    return st;
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}

/** The directory at `segments`, listed by name (at most {@link MAX_LIST_ENTRIES}). */
export async function listDir(ws: Workspace, segments: readonly string[]): Promise<{ entries: FileEntry[]; truncated: boolean }> {
  const dir = await walkToDir(ws.root, segments);
  try {
    const { names, total } = await firstNames(at(dir, '.'), MAX_LIST_ENTRIES);
    const entries: FileEntry[] = [];
    // Up to 10,000 lstats: synchronous calls in slices of the API's thread (thread-slices.ts).
    const slices = new ThreadSlices();
    for (const name of names) {
      await slices.pause();
      const st = lstatAtSync(dir, name);
      if (!st) continue;
      const entry: FileEntry = { name, type: entryType(st), size: Number(st.size), mode: modeString(st), mtime: new Date(Number(st.mtimeMs)).toISOString() };
      if (st.isSymbolicLink()) entry.target = await readlinkName(at(dir, name)).catch(() => '');
      entries.push(entry);
    }
    return { entries, truncated: total > MAX_LIST_ENTRIES };
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}

/**
 * The first `most` names of the directory at `dirPath` in sort order, and how many it holds. Read
 * as a stream and cut back to `most` whenever twice that many are held, so a directory of
 * millions of names (an agent's to make) costs the API time, never memory in proportion.
 */
async function firstNames(dirPath: PathLike, most: number): Promise<{ names: string[]; total: number }> {
  let names: string[] = [];
  let total = 0;
  // As bytes: a name that is not UTF-8 is listed escaped (fs-names.ts), not dropped when its U+FFFD form names nothing.
  const listing = await opendir(dirPath, { bufferSize: 256, ...BYTE_NAMES });
  for await (const d of listing) {
    total++;
    names.push(nameOf(d));
    if (names.length >= 2 * most) names = names.sort().slice(0, most);
  }
  return { names: names.sort().slice(0, most), total };
}

/**
 * Open the regular file at `segments` for reading. lstat first, so a FIFO or device is never
 * opened (an open could block or act on the device); then open with O_NOFOLLOW and O_NONBLOCK
 * and check the descriptor is the file looked at, so a swap in between is refused, not followed.
 */
export async function openRegular(ws: Workspace, segments: readonly string[]): Promise<{ handle: FileHandle; stat: BigIntStats }> {
  const shown = segments.join('/');
  if (segments.length === 0) throw isDirectory(shown);
  const dir = await walkDirs(ws.root, segments.slice(0, -1));
  try {
    const name = segments.at(-1)!;
    const before = await lstatAt(dir, name);
    if (!before) throw notFound(shown);
    checkReadable(ws, before, shown);
    let handle: FileHandle;
    try {
      handle = await open(at(dir, name), FILE_READ_FLAGS);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw typeRefused(shown, 'a symbolic link');
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notFound(shown);
      throw err;
    }
    const stat = await handle.stat({ bigint: true });
    if (stat.ino !== before.ino || stat.dev !== before.dev || !stat.isFile()) {
      await handle.close();
      throw new ApiError('ABX_ERR_CONFLICT', `workspace entry "${shown}" changed while it was opened; try again`);
    }
    return { handle, stat };
  } finally {
    if (dir !== ws.root) await dir.close();
  }
}

/** Refuse what is not a regular file, and a file linked in from elsewhere (several links, another owner). */
export function checkReadable(ws: Workspace, st: BigIntStats, shown: string): void {
  if (st.isDirectory()) throw isDirectory(shown);
  if (st.isSymbolicLink()) throw typeRefused(shown, 'a symbolic link (its target is in the listing of its directory; links are never followed)');
  if (!st.isFile()) throw typeRefused(shown, 'not a regular file (a FIFO, socket or device)');
  if (st.nlink > 1n && Number(st.uid) !== ws.ownUid) throw typeRefused(shown, `a file with ${st.nlink} hard links owned by uid ${st.uid}, not the agent`);
}

export function isDirectory(shown: string): ApiError {
  return new ApiError('ABX_ERR_FILE_TYPE', `workspace entry "${shown || '.'}" is a directory: list it with ?list, or fetch it as a tar with ?format=tar`);
}

export function typeRefused(shown: string, what: string): ApiError {
  return new ApiError('ABX_ERR_FILE_TYPE', `workspace entry "${shown}" is ${what}`);
}

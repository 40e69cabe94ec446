// The entries a capture read that changed around the time its clone was taken, compared with the clone itself: the clone is kept only when it holds each of them as read.
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, openSync, readSync } from 'node:fs';
import { atFd, DIR_FLAGS, openFileAtSync } from '../workspace-files/dir-fd.js';
import { readdirEntriesSync, readlinkNameSync } from '../fs-names.js';
import { CHUNK_BYTES } from './snapshot-manifest.js';

/** An entry whose ctime is too recent to take the clone's copy of it on trust, as the capture read it. */
export type Suspect =
  | { type: 'dir'; rel: string; mode: number; mtimeNs: string; names: string[] }
  | { type: 'file'; rel: string; mode: number; mtimeNs: string; size: number; chunks: string[] }
  | { type: 'symlink'; rel: string; mtimeNs: string; target: string };

/**
 * True when the clone open as `cloneFd` holds every suspect as the capture read it: a directory
 * with the same names, mode and mtime; a file with the same mode, mtime, size and chunks; a link
 * to the same target and mtime. Each is reached below the clone's root by descriptors (O_NOFOLLOW),
 * and must be `owner`'s and carry no setuid, setgid or sticky bit. Reads only the suspects (the
 * few entries an agent changed just before or during the capture), not the tree.
 */
export function cloneHoldsSuspects(cloneFd: number, suspects: readonly Suspect[], owner: { uid: number; gid: number }): boolean {
  return suspects.every((s) => {
    const parent = s.rel === '' ? cloneFd : parentInClone(cloneFd, s.rel);
    if (parent === undefined) return false;
    try {
      return holds(parent, s.rel === '' ? '.' : s.rel.slice(s.rel.lastIndexOf('/') + 1), s, owner);
    } catch {
      return false;
    } finally {
      if (parent !== cloneFd) closeSync(parent);
    }
  });
}

/** The suspect `s`, `name` in the clone's directory open as `dirFd`, as the capture read it. */
function holds(dirFd: number, name: string, s: Suspect, owner: { uid: number; gid: number }): boolean {
  const st = lstatSync(atFd(dirFd, name), { bigint: true });
  if (Number(st.uid) !== owner.uid || Number(st.gid) !== owner.gid || (st.mode & 0o7000n) !== 0n || String(st.mtimeNs) !== s.mtimeNs) return false;
  if (s.type === 'symlink') return st.isSymbolicLink() && readlinkNameSync(atFd(dirFd, name)) === s.target;
  if (Number(st.mode & 0o777n) !== s.mode) return false;
  if (s.type === 'dir') {
    if (!st.isDirectory()) return false;
    // Read no further than the capture's count: a clone directory of more names (the agent removed them after the clone was taken) differs whatever they are.
    const listed = readdirEntriesSync(atFd(dirFd, name), s.names.length);
    if (!listed) return false;
    const names = listed.map((d) => d.name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return names.length === s.names.length && names.every((n, i) => n === s.names[i]);
  }
  if (!st.isFile() || Number(st.size) !== s.size) return false;
  const fd = openFileAtSync(dirFd, name);
  if (fd === undefined) return false;
  try {
    return sameChunks(fd, s.chunks);
  } finally {
    closeSync(fd);
  }
}

/** The directory holding `rel` in the clone, opened level by level (O_NOFOLLOW); undefined when a level is not a directory there. */
function parentInClone(cloneFd: number, rel: string): number | undefined {
  let dir = cloneFd;
  try {
    for (const part of rel.split('/').slice(0, -1)) {
      const next = openSync(atFd(dir, part), DIR_FLAGS);
      if (dir !== cloneFd) closeSync(dir);
      dir = next;
    }
    return dir;
  } catch {
    if (dir !== cloneFd) closeSync(dir);
    return undefined;
  }
}

/** The file's chunks hashed as a capture hashes them, against `chunks`. */
function sameChunks(fd: number, chunks: readonly string[]): boolean {
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  for (let i = 0; ; i++) {
    let n = 0;
    while (n < CHUNK_BYTES) {
      const got = readSync(fd, buf, n, CHUNK_BYTES - n, position + n);
      if (got === 0) break;
      n += got;
    }
    if (n === 0) return i === chunks.length;
    if (createHash('sha256').update(buf.subarray(0, n)).digest('hex') !== chunks[i]) return false;
    position += n;
    if (n < CHUNK_BYTES) return i + 1 === chunks.length;
  }
}

// Writing a workspace file atomically: a temporary file in the same directory, given to the agent, then renamed over the name.
import { constants, type BigIntStats } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, removeMadeDirs, walkDirs, type Owner } from './dir-fd.js';
import { etagOf, isDirectory, typeRefused } from './file-read.js';
import type { WriteCharge } from './write-ledger.js';
import { fileTemporary, type RecordedTemporary } from './temporary-records.js';

/** What a write may not exceed, and its preconditions. */
export interface WriteOptions {
  /** Permission bits; setuid, setgid and sticky are dropped. Default 0644. */
  mode?: number;
  /** Bytes the body may hold (the per-file limit, or what the disk budget has left if less). */
  maxBytes: number;
  /** Why `maxBytes` is what it is, for the error. */
  limitName: string;
  ifMatch?: string;
  ifNoneMatch?: string;
  /** Create missing parent directories. */
  parents?: boolean;
  /** Charged each chunk before it is written (the agent's disk budget, write-ledger.ts); false refuses the write. */
  charge?: WriteCharge;
}

/** Permission bits a written entry may have: never setuid, setgid or sticky. */
export const sanitiseMode = (mode: number): number => mode & 0o777;

/**
 * Write `body` to `segments`: into `.<name>.<random>.tmp` (O_EXCL, O_NOFOLLOW, mode 0600, given to
 * the agent), then chmod and rename over the name, so a reader sees the old file or the new one
 * whole. Nothing is left behind on failure; the temporary is recorded before it is made, so one a
 * killed process left is removed at the next start (temporary-sweep.ts). Not flushed to disk before
 * the answer (a crash may lose the new content; never half of it under the name).
 */
export async function writeFileAtomic(
  ws: Workspace,
  segments: readonly string[],
  body: Readable,
  options: WriteOptions,
): Promise<{ created: boolean; etag: string; size: number }> {
  const shown = segments.join('/');
  if (segments.length === 0) throw isDirectory(shown);
  const made: { first?: number } = {};
  const dir = await walkDirs(ws.root, segments.slice(0, -1), options.parents ? { owner: ws.owner, made } : undefined);
  let written = false;
  let record: RecordedTemporary | undefined;
  try {
    const name = segments.at(-1)!;
    const current = await lstatAt(dir, name);
    checkReplaceable(current, shown);
    checkConditions(current, options, shown);
    const tmp = fileTemporary(name);
    // Recorded before it is made: a kill from here on leaves it to the sweep at the next start.
    record = ws.temporaries?.begin(segments.slice(0, -1), tmp, 'file', undefined, made.first);
    // The ETag is the new file's own (its inode, size and mtime, which the rename keeps): taken after
    // the rename, it would be whatever another writer put under the name by then.
    const st = await writeNew(dir, tmp, body, ws.owner, sanitiseMode(options.mode ?? 0o644), options, shown);
    try {
      // Checked again just before the rename: a directory put there meanwhile is not replaced.
      checkReplaceable(await lstatAt(dir, name), shown);
      await rename(at(dir, tmp), at(dir, name));
      written = true;
    } catch (err) {
      await unlink(at(dir, tmp)).catch(() => undefined);
      throw err;
    }
    return { created: current === undefined, etag: etagOf(st), size: Number(st.size) };
  } finally {
    // The temporary is gone by now, renamed over the name or removed.
    record?.end();
    if (dir !== ws.root) await dir.close();
    // A write that failed leaves no parent it made for itself behind.
    if (!written) await removeMadeDirs(ws.root, segments.slice(0, -1), made.first);
  }
}

/** Create `name` in `dir` exclusively and copy `body` into it, stopping past `maxBytes` (or when the charge has no room); removed on failure. Answers the written file's stat. */
export async function writeNew(
  dir: import('node:fs/promises').FileHandle,
  name: string,
  body: Readable,
  owner: Owner | undefined,
  mode: number,
  limit: { maxBytes: number; limitName: string; charge?: WriteCharge },
  shown: string,
): Promise<BigIntStats> {
  const handle = await open(at(dir, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let size = 0;
  try {
    if (owner) await handle.chown(owner.uid, owner.gid);
    // The body comes in chunks of 16–64 KiB; each write is a round trip to the thread pool, so they
    // are gathered and written together (writev), up to WRITE_BATCH_BYTES at a time.
    let held: Buffer[] = [];
    let heldBytes = 0;
    // Not destroyed when the write stops early: a destroyed request leaves its connection unread but open (the route drops the rest).
    for await (const chunk of body.iterator({ destroyOnReturn: false })) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > limit.maxBytes) throw tooLarge(shown, limit.maxBytes, limit.limitName);
      if (limit.charge && !limit.charge.take(buf.length))
        throw new ApiError(
          'ABX_ERR_FILE_TOO_LARGE',
          `"${shown}" is over what the agent's disk budget (sandbox.limits.disk) has left, with the writes going on beside it`,
        );
      held.push(buf);
      heldBytes += buf.length;
      if (heldBytes >= WRITE_BATCH_BYTES) {
        await writeAll(handle, held);
        held = [];
        heldBytes = 0;
      }
    }
    await writeAll(handle, held);
    await handle.chmod(mode);
    const st = await handle.stat({ bigint: true });
    await handle.close();
    return st;
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(at(dir, name)).catch(() => undefined);
    throw err;
  }
}

/** The most of a body held before it is written. */
const WRITE_BATCH_BYTES = 1 << 20;

/** Every byte of `buffers`, in order, in as few writes as the kernel allows. */
async function writeAll(handle: import('node:fs/promises').FileHandle, buffers: Buffer[]): Promise<void> {
  let rest = buffers.filter((b) => b.length > 0);
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest);
    // A short write: drop what was written, and go on from there.
    const next: Buffer[] = [];
    for (const b of rest) {
      if (bytesWritten >= b.length) bytesWritten -= b.length;
      else {
        next.push(b.subarray(bytesWritten));
        bytesWritten = 0;
      }
    }
    rest = next;
  }
}

/** The 413 for a write over a limit. */
export function tooLarge(shown: string, max: number, limitName: string): ApiError {
  return new ApiError('ABX_ERR_FILE_TOO_LARGE', `"${shown}" is over ${limitName} (${max} bytes)`);
}

/** Only a regular file (or nothing) is replaced: never a directory, link, FIFO or device. */
function checkReplaceable(st: BigIntStats | undefined, shown: string): void {
  if (!st || st.isFile()) return;
  if (st.isDirectory()) throw isDirectory(shown);
  throw typeRefused(
    shown,
    st.isSymbolicLink() ? 'a symbolic link; it is not written through (DELETE it first)' : 'not a regular file (a FIFO, socket or device)',
  );
}

/** If-None-Match: * creates only; If-Match: replaces only the file with one of these ETags (or * for any). */
function checkConditions(st: BigIntStats | undefined, options: WriteOptions, shown: string): void {
  const { ifMatch, ifNoneMatch } = options;
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== '*') throw new ApiError('ABX_ERR_BAD_REQUEST', 'If-None-Match on a PUT takes only * (create, never replace)');
    if (st) throw new ApiError('ABX_ERR_PRECONDITION_FAILED', `"${shown}" exists (If-None-Match: *)`);
  }
  if (ifMatch !== undefined) {
    const tags = ifMatch.split(',').map((s) => s.trim());
    if (!st) throw new ApiError('ABX_ERR_PRECONDITION_FAILED', `"${shown}" does not exist (If-Match)`);
    if (!tags.includes('*') && !tags.includes(etagOf(st)))
      throw new ApiError('ABX_ERR_PRECONDITION_FAILED', `"${shown}" has ETag ${etagOf(st)}, not ${ifMatch}`);
  }
}

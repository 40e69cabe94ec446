// A tar upload into a workspace directory: tar-stream parses, every entry is checked, written into a private staging directory, moved in only once the whole tar was accepted.
import { closeSync, constants, fchmodSync, fchownSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { lchown, mkdir, open, symlink, unlink, type FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { at, DIR_FLAGS, lstatAt, lstatAtSync, mkdirAt, removeMadeDirs, walkDirs, type Owner } from './dir-fd.js';
import { removeTree } from './file-delete.js';
import { fsPath } from '../fs-names.js';
import { ThreadSlices } from '../thread-slices.js';
import { checkEntry, tarRefused } from './tar-entry-checks.js';
import type { UploadLimits } from './tar-limits.js';
import { checkMerge, merge } from './tar-merge.js';
import { entryData, readTar, skipData, type TarEntry, type TarInput } from './tar-read.js';
import type { WriteCharge } from './write-ledger.js';
import { uploadStaging, type RecordedTemporary } from './temporary-records.js';

/** What an upload wrote. */
export interface ExtractReport {
  files: number;
  dirs: number;
  symlinks: number;
  bytes: number;
}

/**
 * Extract the tar in `body` into the directory `segments` (made when missing). What is refused is
 * `checkEntry`'s; besides, an entry written through a link (directories are opened with
 * O_NOFOLLOW) and a directory over a file. The entries go to `.abx-upload-<random>` (0700, the
 * box's own) in the target directory, and are renamed into place only after the tar's end was
 * read and every entry accepted; a refused or broken tar leaves the target as it was.
 */
export async function extractTar(
  ws: Workspace,
  segments: readonly string[],
  body: Readable,
  limits: UploadLimits,
  charge?: WriteCharge,
  /** The permission bits of the directory, when this upload makes it (a tar holds what is below it, not the directory itself). */
  dirMode?: number,
): Promise<ExtractReport> {
  const input = readTar(body);
  let target: FileHandle | undefined;
  let staging: FileHandle | undefined;
  const stagingName = uploadStaging();
  const made: { first?: number } = {};
  let merged = false;
  let record: RecordedTemporary | undefined;
  try {
    target = await walkDirs(ws.root, segments, { owner: ws.owner, made });
    // Recorded before it is made: a kill from here on leaves it to the sweep at the next start.
    record = ws.temporaries?.begin(segments, stagingName, 'upload', undefined, made.first);
    await mkdir(at(target, stagingName), { mode: 0o700 });
    staging = await open(at(target, stagingName), DIR_FLAGS);
    const context: Context = { count: 0, base: segments, owner: ws.owner, limits, slices: new ThreadSlices(), ...(charge ? { charge } : {}) };
    const report = await unpack(input, staging, context).finally(() => context.parent?.dir.close());
    // Each step reads no more staged names than the upload wrote (tar-merge.ts says why).
    await checkMerge(staging, target, '', { left: context.count });
    merged = true;
    await merge(staging, target, { left: context.count });
    // Only a directory this upload made: an existing one's mode is the agent's own. The owner keeps every right (as below it).
    if (dirMode !== undefined && made.first !== undefined && segments.length > 0) await target.chmod((dirMode & 0o777) | 0o700);
    return report;
  } catch (err) {
    await input.abandon();
    throw err;
  } finally {
    await staging?.close();
    if (target) {
      await removeTree(target, stagingName, stagingName, { unseal: true }).catch(() => undefined);
      // A staging directory that could not be removed keeps its record: the next start tries again.
      if (!(await lstatAt(target, stagingName).catch(() => true))) record?.end();
      if (target !== ws.root) await target.close();
    }
    // A refused tar leaves no directory it made for itself behind either.
    if (!merged) await removeMadeDirs(ws.root, segments, made.first);
  }
}

interface Context {
  /** Entries read so far, and the directories made for their paths that no entry of the tar named (both count to `limits.entries`). */
  count: number;
  /** Where the upload lands, in workspace segments: link targets are judged from there. */
  base: readonly string[];
  owner: Owner | undefined;
  limits: UploadLimits;
  /** The agent's disk budget (write-ledger.ts), charged each file's size, rounded up to 4 KiB, before it is written. */
  charge?: WriteCharge;
  /**
   * The directory the last entry went into, kept open for the next: a tar lists a directory's
   * entries one after another, and walking to it again (an open and a close per level) was most
   * of what a small file cost.
   */
  parent?: { key: string; dir: FileHandle };
  /** A small file's calls are synchronous, made in slices of the API's thread (thread-slices.ts). */
  slices: ThreadSlices;
}

/**
 * Files up to this size are written with synchronous calls: each call on the thread pool costs a
 * round trip several times the call itself, and a source tree is mostly such files. Larger ones
 * are written on the thread pool, where a write held up by the disk holds no request.
 */
const SYNC_WRITE_MAX_BYTES = 64 * 1024;

async function unpack(input: TarInput, staging: FileHandle, ctx: Context): Promise<ExtractReport> {
  const report: ExtractReport = { files: 0, dirs: 0, symlinks: 0, bytes: 0 };
  for (let entry = await input.next(); entry; entry = await input.next()) {
    ctx.count++;
    overEntries(ctx);
    await unpackEntry(entry, staging, ctx, report);
    await ctx.slices.pause();
  }
  return report;
}

/**
 * The entry limit counts the directories an upload makes for its entries' paths too: a name
 * 128 levels deep makes up to 127 of them, so 100,000 entries alone could have made millions.
 */
function overEntries(ctx: Context): void {
  if (ctx.count > ctx.limits.entries)
    throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `the tar holds more than ${ctx.limits.entries} entries (the directories made for their paths counted)`);
}

/**
 * A directory takes a block of disk (4 KiB) whatever it holds: each one an upload makes is charged
 * to the agent's disk budget, so a tar of empty directories cannot fill a disk the budget guards.
 */
function chargeDirs(ctx: Context, dirs: number, shown: string): void {
  if (dirs > 0 && ctx.charge && !ctx.charge.take(dirs * 4096))
    throw new ApiError(
      'ABX_ERR_FILE_TOO_LARGE',
      `the directories of tar entry "${shown}" are over what the agent's disk budget (sandbox.limits.disk) has left (4 KiB a directory), with the writes going on beside it`,
    );
}

async function unpackEntry(entry: TarEntry, staging: FileHandle, ctx: Context, report: ExtractReport): Promise<void> {
  const checked = checkEntry(entry.header, ctx.base);
  if (checked.kind === 'root') return skipData(entry, '.');
  const { segments, shown } = checked;
  if (checked.kind === 'file') {
    if (checked.size > ctx.limits.fileBytes)
      throw new ApiError(
        'ABX_ERR_FILE_TOO_LARGE',
        `tar entry "${shown}" of ${checked.size} bytes is over ${ctx.limits.fileName} (${ctx.limits.fileBytes} bytes)`,
      );
    if (report.bytes + checked.size > ctx.limits.totalBytes)
      throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `the tar's files are over ${ctx.limits.totalName} (${ctx.limits.totalBytes} bytes)`);
    if (ctx.charge && !ctx.charge.take(Math.ceil(checked.size / 4096) * 4096))
      throw new ApiError(
        'ABX_ERR_FILE_TOO_LARGE',
        `tar entry "${shown}" of ${checked.size} bytes is over what the agent's disk budget (sandbox.limits.disk) has left, with the writes going on beside it`,
      );
  }
  const parent = await parentOf(staging, segments.slice(0, -1), ctx, shown);
  const name = segments.at(-1)!;
  const existing = lstatAtSync(parent, name);
  switch (checked.kind) {
    case 'dir':
      if (existing && !existing.isDirectory()) throw tarRefused(`"${shown}" is a directory entry over a file or link of the same name`);
      if (!existing) {
        chargeDirs(ctx, 1, shown);
        await mkdirAt(parent, name, ctx.owner, checked.mode | 0o700);
      }
      report.dirs++;
      return await skipData(entry, shown);
    case 'file':
      if (existing?.isDirectory()) throw tarRefused(`"${shown}" is a file entry over a directory of the same name`);
      if (existing) unlinkSync(at(parent, name));
      if (checked.size <= SYNC_WRITE_MAX_BYTES) await writeSmallEntry(entry, parent, name, checked.mode, ctx.owner, shown);
      else await writeEntry(entry, parent, name, checked.mode, ctx.owner, shown);
      report.files++;
      report.bytes += checked.size;
      return;
    case 'symlink':
      if (existing?.isDirectory()) throw tarRefused(`"${shown}" is a link entry over a directory of the same name`);
      if (existing) await unlink(at(parent, name));
      await symlink(fsPath(checked.target), at(parent, name));
      if (ctx.owner) await lchown(at(parent, name), ctx.owner.uid, ctx.owner.gid);
      report.symlinks++;
      return await skipData(entry, shown);
  }
}

/**
 * The entry's parent directory in staging: the last entry's when it is the same (kept open in
 * `ctx.parent`), else walked (and made) from staging, and kept in its place.
 */
async function parentOf(staging: FileHandle, segments: readonly string[], ctx: Context, shown: string): Promise<FileHandle> {
  if (segments.length === 0) return staging;
  const key = segments.join('/');
  if (ctx.parent?.key === key) return ctx.parent.dir;
  const made: { count?: number } = {};
  const dir = await walkIn(staging, segments, ctx.owner, shown, made);
  const last = ctx.parent;
  ctx.parent = { key, dir };
  await last?.dir.close();
  ctx.count += made.count ?? 0;
  overEntries(ctx);
  chargeDirs(ctx, made.count ?? 0, shown);
  return dir;
}

/** Walk (and make) the entry's parent directories in staging: a link met on the way is refused. */
async function walkIn(
  staging: FileHandle,
  segments: readonly string[],
  owner: Owner | undefined,
  shown: string,
  made: { count?: number },
): Promise<FileHandle> {
  try {
    return await walkDirs(staging, segments, { owner, made });
  } catch (err) {
    if (err instanceof ApiError) throw tarRefused(`"${shown}" is written through a link or a file (${err.message})`);
    throw err;
  }
}

/** {@link writeEntry} for a small file, by synchronous calls. */
async function writeSmallEntry(entry: TarEntry, parent: FileHandle, name: string, mode: number, owner: Owner | undefined, shown: string): Promise<void> {
  const fd = openSync(at(parent, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    if (owner) fchownSync(fd, owner.uid, owner.gid);
    for await (const chunk of entryData(entry, shown)) {
      let off = 0;
      while (off < chunk.length) off += writeSync(fd, chunk, off, chunk.length - off);
    }
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

/** A file entry's data into a new file (O_EXCL, O_NOFOLLOW), then its mode. */
async function writeEntry(entry: TarEntry, parent: FileHandle, name: string, mode: number, owner: Owner | undefined, shown: string): Promise<void> {
  const handle = await open(at(parent, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    if (owner) await handle.chown(owner.uid, owner.gid);
    for await (const chunk of entryData(entry, shown)) {
      let off = 0;
      while (off < chunk.length) off += (await handle.write(chunk, off, chunk.length - off)).bytesWritten;
    }
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

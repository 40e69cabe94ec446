// A tar upload into a workspace directory: every entry checked, written into a private staging directory, moved in only once the whole tar was accepted.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lchown, mkdir, open, readdir, rename, symlink, unlink, type FileHandle } from 'node:fs/promises';
import { ApiError } from '../errors.js';
import type { Workspace } from './agent-workspace.js';
import { ByteReader } from './byte-reader.js';
import { at, DIR_FLAGS, lstatAt, mkdirAt, openDirAt, walkDirs, type Owner } from './dir-fd.js';
import { removeTree } from './file-delete.js';
import { parseFilePath } from './file-path.js';
import { sanitiseMode } from './file-write.js';
import { BLOCK, decodeBlock, parsePax, type TarHeader } from './tar-format.js';
import { MAX_META_BYTES, type UploadLimits } from './tar-limits.js';

/** What an upload wrote. */
export interface ExtractReport {
  files: number;
  dirs: number;
  symlinks: number;
  bytes: number;
}

/**
 * Extract the tar in `body` into the directory `segments` (made when missing). Refused: names
 * absolute or with `..`; hard links; devices, FIFOs and every other special type; links whose
 * target is absolute or leaves the workspace; an entry written through a link (directories are
 * opened with O_NOFOLLOW); a directory over a file. Modes keep their permission bits only. The
 * entries go to `.abx-upload-<random>` (0700, the box's own) in the target directory, and are
 * renamed into place only after the last block was read and accepted; a refused or broken tar
 * leaves the target as it was.
 */
export async function extractTar(
  ws: Workspace,
  segments: readonly string[],
  body: AsyncIterable<Buffer | string>,
  limits: UploadLimits,
): Promise<ExtractReport> {
  const reader = new ByteReader(body);
  const target = await walkDirs(ws.root, segments, { owner: ws.owner });
  const stagingName = `.abx-upload-${randomBytes(8).toString('hex')}`;
  await mkdir(at(target, stagingName), { mode: 0o700 });
  const staging = await open(at(target, stagingName), DIR_FLAGS);
  try {
    const report = await unpack(reader, staging, { ws, base: segments, owner: ws.owner, limits });
    await checkMerge(staging, target, '');
    await merge(staging, target);
    return report;
  } catch (err) {
    await reader.drain().catch(() => undefined);
    throw err;
  } finally {
    await staging.close();
    await removeTree(target, stagingName, stagingName).catch(() => undefined);
    if (target !== ws.root) await target.close();
  }
}

interface Context {
  ws: Workspace;
  /** Where the upload lands, in workspace segments: link targets are judged from there. */
  base: readonly string[];
  owner: Owner | undefined;
  limits: UploadLimits;
}

async function unpack(reader: ByteReader, staging: FileHandle, ctx: Context): Promise<ExtractReport> {
  const report: ExtractReport = { files: 0, dirs: 0, symlinks: 0, bytes: 0 };
  let entries = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let pax = new Map<string, string>();
  for (;;) {
    const blockBytes = await reader.read(BLOCK);
    if (blockBytes.length === 0) return report;
    if (blockBytes.length < BLOCK) throw refused('the tar ends inside a header block');
    let header: TarHeader | null;
    try {
      header = decodeBlock(blockBytes);
    } catch (err) {
      throw refused((err as Error).message);
    }
    if (!header) return report;
    if (header.type === 'x' || header.type === 'g' || header.type === 'L' || header.type === 'K') {
      if (header.size > MAX_META_BYTES) throw refused(`a ${header.type} record of ${header.size} bytes is over ${MAX_META_BYTES}`);
      const data = await readData(reader, header.size);
      if (header.type === 'x') pax = parsePax(data);
      else if (header.type === 'L') longName = data.toString('utf8').replace(/\0+$/u, '');
      else if (header.type === 'K') longLink = data.toString('utf8').replace(/\0+$/u, '');
      continue;
    }
    const entry = { ...header, name: pax.get('path') ?? longName ?? header.name, linkname: pax.get('linkpath') ?? longLink ?? header.linkname };
    if (pax.has('size')) entry.size = Number(pax.get('size'));
    pax = new Map();
    longName = undefined;
    longLink = undefined;
    if (++entries > ctx.limits.entries) throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `the tar holds more than ${ctx.limits.entries} entries`);
    await unpackEntry(reader, staging, entry, ctx, report);
  }
}

async function unpackEntry(reader: ByteReader, staging: FileHandle, entry: TarHeader, ctx: Context, report: ExtractReport): Promise<void> {
  const segments = entryPath(entry.name);
  if (segments.length === 0) {
    // "./" itself: the target directory, which exists.
    await skip(reader, entry.size);
    return;
  }
  const shown = segments.join('/');
  const mode = sanitiseMode(entry.mode);
  switch (entry.type) {
    case '5': {
      const parent = await walkIn(staging, segments.slice(0, -1), ctx.owner, shown);
      try {
        const name = segments.at(-1)!;
        const existing = await lstatAt(parent, name);
        if (existing && !existing.isDirectory()) throw refused(`"${shown}" is a directory entry over a file or link of the same name`);
        if (!existing) await mkdirAt(parent, name, ctx.owner, mode | 0o700);
      } finally {
        if (parent !== staging) await parent.close();
      }
      report.dirs++;
      await skip(reader, entry.size);
      return;
    }
    case '0':
    case '7': {
      if (!Number.isSafeInteger(entry.size) || entry.size > ctx.limits.fileBytes)
        throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `tar entry "${shown}" of ${entry.size} bytes is over the per-file limit (${ctx.limits.fileBytes} bytes)`);
      if (report.bytes + entry.size > ctx.limits.totalBytes)
        throw new ApiError('ABX_ERR_FILE_TOO_LARGE', `the tar's files are over ${ctx.limits.totalName} (${ctx.limits.totalBytes} bytes)`);
      const parent = await walkIn(staging, segments.slice(0, -1), ctx.owner, shown);
      try {
        await writeEntry(reader, parent, segments.at(-1)!, entry.size, mode, ctx.owner, shown);
      } finally {
        if (parent !== staging) await parent.close();
      }
      report.files++;
      report.bytes += entry.size;
      return;
    }
    case '2': {
      checkLinkTarget(ctx.base, segments, entry.linkname, shown);
      const parent = await walkIn(staging, segments.slice(0, -1), ctx.owner, shown);
      try {
        const name = segments.at(-1)!;
        const existing = await lstatAt(parent, name);
        if (existing?.isDirectory()) throw refused(`"${shown}" is a link entry over a directory of the same name`);
        if (existing) await unlink(at(parent, name));
        await symlink(entry.linkname, at(parent, name));
        if (ctx.owner) await lchown(at(parent, name), ctx.owner.uid, ctx.owner.gid);
      } finally {
        if (parent !== staging) await parent.close();
      }
      report.symlinks++;
      await skip(reader, entry.size);
      return;
    }
    case '1':
      throw refused(`"${shown}" is a hard link (to ${JSON.stringify(entry.linkname)}); hard links are not extracted: pack the file itself`);
    case '3':
    case '4':
      throw refused(`"${shown}" is a device; devices are never extracted`);
    case '6':
      throw refused(`"${shown}" is a FIFO; FIFOs are never extracted`);
    default:
      throw refused(`"${shown}" has entry type ${JSON.stringify(entry.type)}, which is not extracted (files, directories and links only)`);
  }
}

/** An entry's name as workspace segments: a leading "./" (or several) dropped; absolute names, `..` and control characters refused. */
function entryPath(name: string): string[] {
  let rest = name;
  while (rest.startsWith('./')) rest = rest.slice(2);
  if (rest === '.' || rest === '') return [];
  if (name.startsWith('/')) throw refused(`entry ${JSON.stringify(name)} has an absolute name`);
  try {
    return parseFilePath(rest);
  } catch (err) {
    throw refused(`entry ${JSON.stringify(name)}: ${(err as Error).message}`);
  }
}

/** A link's target must be relative and, read from the link's own directory, stay inside the workspace. */
function checkLinkTarget(base: readonly string[], segments: readonly string[], target: string, shown: string): void {
  if (target === '' || target.includes('\0')) throw refused(`link "${shown}" has an empty target`);
  if (target.startsWith('/')) throw refused(`link "${shown}" points to an absolute path (${JSON.stringify(target)}); links must stay inside the workspace`);
  // Counted step by step: a climb out and back in ("../../x/y") is refused too, as it names what is outside.
  let depth = base.length + segments.length - 1;
  for (const part of target.split('/')) {
    if (part === '..') depth--;
    else if (part !== '.' && part !== '') depth++;
    if (depth < 0) throw refused(`link "${shown}" points outside the workspace (${JSON.stringify(target)})`);
  }
}

/** Walk (and make) the entry's parent directories in staging: a link met on the way is refused. */
async function walkIn(staging: FileHandle, segments: readonly string[], owner: Owner | undefined, shown: string): Promise<FileHandle> {
  try {
    return await walkDirs(staging, segments, { owner });
  } catch (err) {
    if (err instanceof ApiError) throw refused(`"${shown}" is written through a link or a file (${err.message})`);
    throw err;
  }
}

/** A file entry: its `size` bytes into a new file (a file of the same name earlier in the tar is replaced). */
async function writeEntry(
  reader: ByteReader,
  parent: FileHandle,
  name: string,
  size: number,
  mode: number,
  owner: Owner | undefined,
  shown: string,
): Promise<void> {
  const existing = await lstatAt(parent, name);
  if (existing?.isDirectory()) throw refused(`"${shown}" is a file entry over a directory of the same name`);
  if (existing) await unlink(at(parent, name));
  const handle = await open(at(parent, name), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    if (owner) await handle.chown(owner.uid, owner.gid);
    let left = size;
    while (left > 0) {
      const chunk = await reader.some(left);
      if (chunk.length === 0) throw refused(`the tar ends inside "${shown}"`);
      let off = 0;
      while (off < chunk.length) off += (await handle.write(chunk, off, chunk.length - off)).bytesWritten;
      left -= chunk.length;
    }
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
  await skip(reader, (BLOCK - (size % BLOCK)) % BLOCK);
}

async function readData(reader: ByteReader, size: number): Promise<Buffer> {
  const data = await reader.read(size);
  if (data.length < size) throw refused('the tar ends inside a record');
  await skip(reader, (BLOCK - (size % BLOCK)) % BLOCK);
  return data;
}

async function skip(reader: ByteReader, size: number): Promise<void> {
  let left = size;
  while (left > 0) {
    const chunk = await reader.some(Math.min(left, 1 << 20));
    if (chunk.length === 0) throw refused('the tar ends inside an entry');
    left -= chunk.length;
  }
}

/** Before anything moves: a staged directory must meet a directory or nothing, a staged file or link never a directory. */
async function checkMerge(src: FileHandle, dst: FileHandle, shown: string): Promise<void> {
  for (const name of await readdir(at(src, '.'))) {
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
      const [ss, dd] = [await openDirAt(src, name, here), await openDirAt(dst, name, here)];
      try {
        await checkMerge(ss, dd, here);
      } finally {
        await ss.close();
        await dd.close();
      }
    } else if (!d.isFile() && !d.isSymbolicLink()) throw new ApiError('ABX_ERR_FILE_TYPE', `"${here}" is a special file in the workspace; nothing was written`);
  }
}

/** Move staged entries into place, each by one rename (a file or link replaces its namesake; directories merge). */
async function merge(src: FileHandle, dst: FileHandle): Promise<void> {
  for (const name of await readdir(at(src, '.'))) {
    const s = await lstatAt(src, name);
    const d = await lstatAt(dst, name);
    if (s?.isDirectory() && d?.isDirectory()) {
      const [ss, dd] = [await openDirAt(src, name, name), await openDirAt(dst, name, name)];
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

function refused(why: string): ApiError {
  return new ApiError('ABX_ERR_TAR_REFUSED', `the tar was refused, nothing was written: ${why}`);
}

// `agentbox cp AGENT:path DST`: a file by GET into a local file (or stdout), a directory as a tar stream extracted locally with the box's own entry checks.
import { randomBytes } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, mkdir, open, rename, rmdir, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ApiError } from '../../management-api/src/errors.js';
import { extractTar } from '../../management-api/src/workspace-files/tar-extract.js';
import { namePrefix } from '../../management-api/src/fs-names.js';
import { UserError } from './cli-errors.js';
import type { Operand } from './cp-operands.js';
import { progress } from './cp-progress.js';
import { stdoutSink } from './stdout-sink.js';
import { tarCounter } from './cp-tar-count.js';
import { filesUrl, type FilesRoot, refused, remoteKind, send } from './cp-remote.js';
import type { BoxTarget } from './box-target.js';
import { DOWNLOAD_LIMITS, openLocalTree } from './local-tree.js';
import { describeLocal, fileLanding } from './cp-local-dest.js';

/** What a copy moved: bytes of file data, entries (files, directories, links). */
export interface CopyReport {
  kind: 'file' | 'dir';
  from: string;
  to: string;
  bytes: number;
  entries: number;
}

type Remote = Extract<Operand, { kind: 'remote' }>;

/** Copy the remote `src` (an agent's workspace, or a snapshot's files) to the local path (or stdout) `dst`. */
export async function download(target: BoxTarget, files: FilesRoot, src: Remote, dst: Exclude<Operand, Remote>): Promise<CopyReport> {
  const shown = `${src.agent}:${src.segments.join('/')}`;
  // The top too: a snapshot's id that names none is said so before anything is written.
  const found = await remoteKind(target, files, src.segments, shown);
  if (found.kind === 'missing') throw new UserError(`${shown}: ${found.why}`, 1);
  const { kind } = found;
  if (src.contents && kind !== 'dir')
    throw new UserError(`${src.agent}:${src.raw}: ${shown} is not a directory; a path ending in "." names a directory's contents`, 1);
  // As the files API answers such a path (409): a trailing / names a directory.
  if (src.slash && kind !== 'dir') throw new UserError(`${src.agent}:${src.raw}: not a directory; a path ending in / names a directory`, 1);
  if (kind === 'dir') return downloadDir(target, files, src, dst, shown);
  return downloadFile(target, files, src, dst, shown);
}

async function downloadFile(target: BoxTarget, files: FilesRoot, src: Remote, dst: Exclude<Operand, Remote>, shown: string): Promise<CopyReport> {
  const res = await send(target, 'GET', filesUrl(target, files, src.segments));
  if (!res.ok || !res.body) throw await refused(shown, res);
  const total = Number(res.headers.get('content-length') ?? Number.NaN);
  const meter = progress(shown, Number.isFinite(total) ? total : undefined);
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  let cut: Error | undefined;
  body.once('error', (err) => (cut = err));
  if (dst.kind === 'stdio') {
    await pipeline(body, meter.meter, stdoutSink).catch((err: unknown) => {
      throw cut ? cutOff(shown, cut, 'what was written to stdout is incomplete', FILE_CUT_REASONS) : err;
    });
    meter.done();
    return { kind: 'file', from: shown, to: '-', bytes: meter.bytes(), entries: 1 };
  }
  const into = await isDir(dst.path);
  if (dst.slash && !into) throw notADirectory(shown, dst.path);
  const file = into ? path.join(dst.path, src.segments.at(-1)!) : dst.path;
  const landing = await fileLanding(file).catch((err) => {
    throw localError(file, err);
  });
  try {
    if (landing.how === 'into') {
      // No O_CREAT, no O_TRUNC: a FIFO or a device is written as it is, never made or replaced.
      const handle = await open(landing.path, constants.O_WRONLY | constants.O_NOCTTY);
      await pipeline(body, meter.meter, handle.createWriteStream());
    } else await replaceFile(body, meter.meter, landing.path, Number.parseInt(res.headers.get('x-file-mode') ?? '644', 8));
  } catch (err) {
    const kept = landing.how === 'into' ? `what was written to ${file} is incomplete` : `nothing was written to ${file}`;
    throw cut ? cutOff(shown, cut, kept, FILE_CUT_REASONS) : localError(file, err);
  } finally {
    meter.done();
  }
  return { kind: 'file', from: shown, to: file, bytes: meter.bytes(), entries: 1 };
}

/** A file written beside `file` and renamed over it, with `mode`: an interrupted copy never leaves half a file under the name. */
async function replaceFile(body: Readable, meter: Transform, file: string, mode: number): Promise<void> {
  // At most 200 bytes of the name: a file's name may take all 255 the kernel allows.
  const part = path.join(path.dirname(file), `.${namePrefix(path.basename(file), 200)}.${randomBytes(4).toString('hex')}.part`);
  try {
    await pipeline(body, meter, createWriteStream(part, { flags: 'wx', mode: 0o600 }));
    await chmod(part, mode & 0o777);
    await rename(part, file);
  } catch (err) {
    await unlink(part).catch(() => undefined);
    throw err;
  }
}

/** A destination ending in `/` that is not a directory: as cp, a file is never made under that name. */
function notADirectory(shown: string, dst: string): UserError {
  return new UserError(
    `${shown} -> ${dst}: not a directory; a destination ending in / names an existing directory to copy into (drop the / to name a new file)`,
    1,
  );
}

/**
 * A directory: its tar into DST/<name> when DST is a directory (the workspace itself, or a path
 * ending in `.`: into DST, merged with what is there), else into DST, made for it. Extracted as
 * the box extracts an upload: each entry checked (a link leading out of the copy, a hard link, a
 * device refused), staged, moved in only when the whole tar was accepted; a refused tar leaves
 * nothing behind, not even the directory made for it.
 */
async function downloadDir(target: BoxTarget, files: FilesRoot, src: Remote, dst: Exclude<Operand, Remote>, shown: string): Promise<CopyReport> {
  const res = await send(target, 'GET', filesUrl(target, files, src.segments, '?format=tar'));
  if (!res.ok || !res.body) throw await refused(shown, res);
  const meter = progress(shown);
  const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
  // The box ends a pack midway when it cannot finish it (headers sent, no error body): said as such, not as a local error.
  let cut: Error | undefined;
  body.once('error', (err) => (cut = err));
  if (dst.kind === 'stdio') {
    const counter = tarCounter();
    await pipeline(body, meter.meter, counter.stream, stdoutSink).catch((err: unknown) => {
      throw cut ? cutOff(shown, cut, 'the tar written to stdout is incomplete') : err;
    });
    meter.done();
    // As a copy into a directory reports one: its entries and the bytes of its files (not the tar's, with headers and padding).
    return { kind: 'dir', from: shown, to: '-', ...counter.counts() };
  }
  const dir = src.segments.length > 0 && !src.contents && (await isDir(dst.path)) ? path.join(dst.path, src.segments.at(-1)!) : dst.path;
  // Made with the directory's own mode, as the extraction makes each one below it: the owner's bits all kept, the umask applied.
  const mode = res.headers.get('x-file-mode');
  const made = await mkdir(dir, { mode: mode ? (Number.parseInt(mode, 8) & 0o777) | 0o700 : 0o777 }).then(
    () => true,
    (err: NodeJS.ErrnoException) => {
      if (err.code === 'EEXIST') return false;
      throw localError(dir, err);
    },
  );
  if (!made && !(await isDir(dir)))
    throw new UserError(`${shown} -> ${dir}: ${dir} is ${await describeLocal(dir)}; a directory is copied into a directory or to a new path`, 1);
  body.once('error', (err) => meter.meter.destroy(err));
  const ws = await openLocalTree(dir).catch((err) => {
    throw localError(dir, err);
  });
  try {
    const report = await extractTar(ws, [], body.pipe(meter.meter), DOWNLOAD_LIMITS);
    return { kind: 'dir', from: shown, to: dir, bytes: report.bytes, entries: report.files + report.dirs + report.symlinks };
  } catch (err) {
    if (made) await rmdir(dir).catch(() => undefined);
    if (cut) throw cutOff(`${shown} -> ${dir}`, cut, 'nothing of it was kept');
    if (err instanceof ApiError) {
      // A refused entry is most often a link the agent made; whoever wants the tree as it is can take the tar and judge it.
      const hint =
        err.code === 'ABX_ERR_TAR_REFUSED' ? `; to take the tree as it is, links and all, stream its tar: agentbox cp ${shown} - | tar -x -C DIR` : '';
      throw new UserError(`${shown} -> ${dir}: ${err.message}${hint}`, 1);
    }
    throw localError(dir, err);
  } finally {
    meter.done();
    await ws.close();
  }
}

/** A tar download the box ended midway; its log names why (the walk's limits, which only it could see once the tar had begun). */
/** The box ended a download after its headers (no error body can follow them): said as the box's doing, with what was kept. */
export function cutOff(shown: string, err: Error, kept: string, why = DIR_CUT_REASONS): UserError {
  return new UserError(`${shown}: the box cut the download off midway (${err.message}); ${kept}. The box's log says why: ${why}`, 1);
}

const DIR_CUT_REASONS =
  "a tree nested more than 128 directory levels deep, sparse files holding more holes than the agent's disk budget (sandbox.limits.disk), a file the agent made shorter while it was packed (try again), or, for a snapshot, a damaged store";
/** Why a file's download is cut after its headers. */
export const FILE_CUT_REASONS =
  "for a snapshot's file, a chunk that does not match its hash (the store is damaged); for a workspace file, a read that failed or the file made shorter while it was read";

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() === true;
}

/** A local file system error as the user's: the path and the reason. */
export function localError(p: string, err: unknown): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e instanceof UserError || !e.code) return err;
  const said: Record<string, string> = { ENOENT: 'no such file or directory', ENOTDIR: 'not a directory' };
  return new UserError(`${p}: ${said[e.code] ?? e.message}`, 1);
}

// `agentbox cp SRC AGENT:path`: a local file (or stdin) by PUT, a local directory packed with tar-stream and POSTed as one all-or-nothing upload.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { packTar } from '../../management-api/src/workspace-files/tar-pack.js';
import type { PackReport } from '../../management-api/src/workspace-files/tar-pack-walk.js';
import type { BoxTarget } from './box-target.js';
import { UserError } from './cli-errors.js';
import { type CopyReport, localError } from './cp-download.js';
import type { Operand } from './cp-operands.js';
import { progress } from './cp-progress.js';
import { filesUrl, type FilesRoot, refused, remoteKind, send } from './cp-remote.js';
import { openLocalTree } from './local-tree.js';

type Remote = Extract<Operand, { kind: 'remote' }>;

/** Copy the local path (or stdin) `src` to the remote `dst` in an agent's workspace. */
export async function upload(target: BoxTarget, files: FilesRoot, src: Exclude<Operand, Remote>, dst: Remote): Promise<CopyReport> {
  const st = src.kind === 'local' ? await stat(src.path).catch((err) => Promise.reject(localError(src.path, err))) : undefined;
  const name = src.kind === 'local' ? path.basename(path.resolve(src.path)) : undefined;
  const shown = `${dst.agent}:${dst.segments.join('/')}`;
  // Stdin has no name to take into a directory, and the workspace itself or a path ending in / names one: bad usage, whatever is there.
  if (src.kind === 'stdio' && (dst.segments.length === 0 || dst.slash))
    throw new UserError(`${dst.agent}:${dst.raw} names a directory, and stdin has no name to copy into it under: name the file (AGENT:dir/name)`, 2);
  // Into DST/<name> when DST is a directory, as cp does (a directory's contents, `dir/.`: into DST itself); else DST itself.
  const kind = dst.segments.length === 0 ? 'dir' : (await remoteKind(target, files, dst.segments, shown)).kind;
  if (st?.isDirectory()) {
    if (kind === 'other') throw new UserError(`${shown} is a file; a directory is copied into a directory or a new path`, 1);
    const segments = kind === 'dir' && !(src.kind === 'local' && src.contents) ? [...dst.segments, name!] : dst.segments;
    return uploadDir(target, files, (src as { path: string }).path, segments, `${dst.agent}:${segments.join('/')}`);
  }
  if (st && !st.isFile()) throw new UserError(`${(src as { path: string }).path} is neither a file nor a directory`, 1);
  // As cp: a file goes into a directory named with a trailing /, never becomes a file of that name.
  if (dst.slash && kind !== 'dir')
    throw new UserError(
      `${dst.agent}:${dst.raw}: ${kind === 'missing' ? 'no such directory' : 'not a directory'}; a destination ending in / names an existing directory to copy into (drop the / to name a new file)`,
      1,
    );
  if (kind === 'dir' && !name) throw new UserError(`${shown} is a directory; name the file to write from stdin (AGENT:dir/name)`, 1);
  const segments = kind === 'dir' ? [...dst.segments, name!] : dst.segments;
  const to = `${dst.agent}:${segments.join('/')}`;
  const meter = progress(to, st ? Number(st.size) : undefined);
  const body = (src.kind === 'local' ? createReadStream(src.path) : process.stdin).pipe(meter.meter);
  const headers: Record<string, string> = { 'content-type': 'application/octet-stream' };
  if (st) headers['x-file-mode'] = (st.mode & 0o777).toString(8).padStart(4, '0');
  try {
    const res = await send(target, 'PUT', filesUrl(target, files, segments), body, headers);
    if (!res.ok) throw await refused(to, res);
    const written = (await res.json()) as { size: number };
    return { kind: 'file', from: src.kind === 'local' ? src.path : '-', to, bytes: written.size, entries: 1 };
  } finally {
    meter.done();
  }
}

async function uploadDir(target: BoxTarget, files: FilesRoot, dir: string, segments: string[], to: string): Promise<CopyReport> {
  const ws = await openLocalTree(dir).catch((err) => Promise.reject(localError(dir, err)));
  const meter = progress(to);
  try {
    const report: PackReport = { entries: 0, skipped: 0 };
    // The operator's own files: the upload's limits apply on the box, no bound on holes read here.
    const { stream: tar, released } = packTar(ws, ws.root, report, Number.POSITIVE_INFINITY);
    // A pack that fails here (a file that read shorter than its size) fails the request too: said as what it is, not as an unreachable box.
    let packFailed: Error | undefined;
    tar.once('error', (err) => {
      packFailed = err;
      meter.meter.destroy(err);
    });
    try {
      // The directory's own mode: the tar holds what is below it, and the box gives it to a directory it makes.
      const mode = ((await stat(dir)).mode & 0o777).toString(8).padStart(4, '0');
      const res = await send(target, 'POST', filesUrl(target, files, segments), tar.pipe(meter.meter), {
        'content-type': 'application/x-tar',
        'x-file-mode': mode,
      }).catch((err: unknown) => {
        throw packFailed ? new UserError(`${dir}: ${packFailed.message}; nothing was written`, 1) : err;
      });
      if (!res.ok) throw await refused(to, res);
      const done = (await res.json()) as { files: number; dirs: number; symlinks: number; bytes: number };
      await released;
      if (report.skipped > 0) process.stderr.write(leftOut(dir, report));
      return { kind: 'dir', from: dir, to, bytes: done.bytes, entries: done.files + done.dirs + done.symlinks };
    } finally {
      // The tree stays open until the worker is done with it (a refusal may come before the whole tar went).
      tar.destroy();
      await released;
    }
  } finally {
    meter.done();
    await ws.close();
  }
}

/** The warning for entries a directory upload left out, naming the first ones. */
export function leftOut(dir: string, report: PackReport): string {
  const names = report.skippedNames ?? [];
  const more = report.skipped - names.length;
  const listed = names.map((n) => `  ${path.join(dir, n)}\n`).join('');
  return (
    `agentbox cp: ${report.skipped} entr${report.skipped === 1 ? 'y' : 'ies'} of ${dir} left out (FIFOs, sockets, devices, files hard-linked from elsewhere, entries that changed while read):\n` +
    listed +
    (more > 0 ? `  … and ${more} more\n` : '')
  );
}

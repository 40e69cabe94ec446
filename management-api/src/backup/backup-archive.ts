// A backup as one tar file (`--to FILE.tar`): the backup directory packed by tar-stream (regular
// files and directories only, the index last), and unpacked again for verify and restore, refusing
// any member that is not a plain relative path.
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import * as tar from 'tar-stream';
import { INDEX_FILE, SIGNATURE_FILE } from './backup-format.js';
import { listFiles } from './backup-index.js';
import { ArchiveShapeError, checkArchiveShape, tarReadError } from './archive-shape.js';
import { removedOnSignal } from './removed-on-signal.js';
import { writeFailure } from './backup-errors.js';

/** Whether the backup target is a tar file rather than a directory: a name ending in .tar, in any case. */
export const isArchiveName = (target: string): boolean => /\.tar$/i.test(target);

/** A name that says a compressed tar, which a backup never is (it is written as a plain tar). */
export const isCompressedTarName = (target: string): boolean => /\.(tar\.(gz|bz2|xz|zst|zstd|lz4)|tgz|tbz2?|txz|tzst)$/i.test(target);

/** Pack the backup directory `dir` into the new file `file` (fsynced). */
export async function packBackup(dir: string, file: string): Promise<void> {
  const pack = tar.pack();
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  const written = pipeline(pack, out);
  try {
    const files = (await listFiles(dir)).concat(INDEX_FILE, existsSync(path.join(dir, SIGNATURE_FILE)) ? [SIGNATURE_FILE] : []);
    for (const rel of files) {
      const full = path.join(dir, ...rel.split('/'));
      const info = await stat(full);
      await new Promise<void>((resolve, reject) => {
        const entry = pack.entry({ name: rel, size: info.size, mode: info.mode & 0o777, mtime: info.mtime, type: 'file' }, (err) =>
          err ? reject(err) : resolve(),
        );
        createReadStream(full).on('error', reject).pipe(entry);
      });
    }
    pack.finalize();
  } catch (err) {
    pack.destroy(err as Error);
  }
  await written;
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A member of a backup archive that is refused. */
export class ArchiveMemberError extends Error {
  override name = 'ArchiveMemberError';
}

/** Unpack the backup archive `file` into the empty directory `into`. */
export async function unpackBackup(file: string, into: string): Promise<void> {
  if ((await readdir(into)).length) throw new Error(`${into} is not empty`);
  await checkArchiveShape(file);
  const extract = tar.extract();
  let last: string | undefined;
  const read = pipeline(createReadStream(file), extract).catch((err: Error) => {
    throw tarReadError(file, err, last);
  });
  // Every wait below is raced against the read failing. Why: a member the reader gave up on (the
  // tar ends inside it) before it was piped on never ends, errors or closes for a pipeline attached
  // after, and a wait on that alone never settled: the process exited 13, saying nothing.
  const failed = read.then(() => new Promise<never>(() => undefined));
  const unlessFailed = <T>(step: Promise<T>): Promise<T> => Promise.race([step, failed]);
  const members = extract[Symbol.asyncIterator]();
  try {
    for (;;) {
      // The reader's own error may come first this way, in its bare words.
      const next = await unlessFailed(
        members.next().catch((err: Error) => {
          throw tarReadError(file, err, last);
        }),
      );
      if (next.done) break;
      const entry = next.value;
      const { name, type, size } = entry.header;
      const parts = name.replace(/\/$/, '').split('/');
      if (path.isAbsolute(name) || parts.some((p) => p === '..' || p === '' || p === '.'))
        throw new ArchiveMemberError(`${file}: member ${JSON.stringify(name)} is not a plain relative path`);
      if (type === 'directory') {
        entry.resume();
        last = name;
        continue;
      }
      if (type !== 'file') throw new ArchiveMemberError(`${file}: member ${name} is a ${type}, not a file`);
      const target = path.join(into, ...parts);
      // A member whose place another took (named twice, or a file where a directory of the path is) is the archive's fault, not the disk's.
      const clash = (err: NodeJS.ErrnoException) => {
        if (err.code === 'EEXIST' || err.code === 'ENOTDIR' || err.code === 'EISDIR')
          throw new ArchiveMemberError(`${file}: member ${name} is there twice, or in the place of another member: the archive is not a backup`);
        throw err;
      };
      await unlessFailed(mkdir(path.dirname(target), { recursive: true, mode: 0o700 }).catch(clash));
      // Opened before it is written: a name taken fails here, in the words above.
      const handle = await unlessFailed(open(target, 'wx', (entry.header.mode ?? 0o600) & 0o777).catch(clash));
      const out = createWriteStream('', { fd: handle });
      try {
        await unlessFailed(pipeline(entry, out));
      } finally {
        out.destroy();
      }
      if (out.bytesWritten !== size)
        throw new ArchiveShapeError(`${file}: member ${name} holds ${out.bytesWritten} of its ${size} bytes: the archive is truncated`);
      last = name;
    }
    await read;
  } finally {
    // Refused midway: the reader stops, and its file is closed.
    extract.destroy();
    read.catch(() => undefined);
  }
}

/**
 * Run `fn` on the backup at `source`: a directory as is, a tar file unpacked into a temporary
 * directory (removed after, also when the process is ended by a signal). `fn` gets the directory
 * and how to show a path in it (`FILE.tar:member`).
 */
export async function withBackupDir<T>(source: string, fn: (dir: string, shown: (text: string) => string) => Promise<T>): Promise<T> {
  const info = await stat(source).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new Error(`${source}: no such backup`);
    throw err;
  });
  if (info.isDirectory()) return fn(source, (text) => text);
  if (!info.isFile()) throw new ArchiveShapeError(`${source} is neither a backup directory nor a tar file`);
  const dir = await mkdtemp(path.join(tmpdir(), 'agentbox-unpacked-'));
  const release = removedOnSignal(dir);
  try {
    await unpackBackup(source, dir).catch(async (err: unknown) => {
      // A write that fails here is the temporary directory's (a full $TMPDIR), never the backup's fault.
      if (err instanceof ArchiveShapeError || err instanceof ArchiveMemberError || !(err as NodeJS.ErrnoException).code) throw err;
      throw await writeFailure(
        err,
        `${source} unpacked into ${dir}`,
        dir,
        `free some space in ${path.dirname(dir)}, or set TMPDIR to a place with room for ${info.size} bytes`,
      );
    });
    return await fn(dir, (text) => text.split(`${dir}/`).join(`${source}:`).split(dir).join(source));
  } finally {
    await rm(dir, { recursive: true, force: true });
    release();
  }
}

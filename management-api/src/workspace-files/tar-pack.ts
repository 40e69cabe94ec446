// A workspace directory as a tar stream packed by tar-stream: regular files, directories and links as links, walked by descriptors; nothing else is packed.
import { closeSync, constants, fstat, open, read, type BigIntStats } from 'node:fs';
import { lstat, readdir, readlink, type FileHandle } from 'node:fs/promises';
import type { Dirent } from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import * as tar from 'tar-stream';
import type { Workspace } from './agent-workspace.js';
import { at, openDirAt } from './dir-fd.js';

/** What a pack wrote and skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
}

const CHUNK = 1 << 20;
/** Files up to this size are read whole before their turn; a larger one is read in CHUNK steps when it comes. */
const READ_AHEAD_BYTES = 256 * 1024;
/**
 * Files opened and read ahead of the one being packed, in the whole walk. One file at a time cost
 * four thread-pool round trips in a row each (open, fstat, read, close); with several in flight
 * the pool's threads work while the pack takes the current one. Bounds what is held to
 * READ_AHEAD × READ_AHEAD_BYTES (2 MiB) however deep the tree.
 */
const READ_AHEAD = 8;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

const openFd = promisify(open);
const fstatFd = promisify(fstat) as (fd: number, options: { bigint: true }) => Promise<BigIntStats>;
const readFd = promisify(read);

/** A file of the walk, opened and checked: its bytes when small, else its descriptor to read at its turn. */
type Loaded = { st: BigIntStats; data: Buffer; fd?: undefined } | { st: BigIntStats; fd: number; data?: undefined } | undefined;

/** Read-ahead shared by every directory of one pack. */
interface Ahead {
  inFlight: number;
}

/**
 * The tar of the directory `dir` (open; the caller closes it once the stream closed). Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked (fstat) to be a
 * regular file; one that shrinks while read is padded with zeros to its size when opened, one
 * that grows is cut to it (a tar header states the size first). Long and non-ASCII names go in
 * pax records.
 */
export function packTar(ws: Workspace, dir: FileHandle, report: PackReport): Readable {
  const pack = tar.pack();
  void (async () => {
    try {
      await packDirectory(pack, ws, dir, report, '', { inFlight: 0 });
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  // A node stream for fastify and fetch; tar-stream's own is a streamx one.
  return Readable.from(pack, { objectMode: false, highWaterMark: CHUNK });
}

/**
 * Open `name` without following a link, and answer it when it is a regular file the pack may
 * take (not a hard link to another user's file): its bytes when at most READ_AHEAD_BYTES, else
 * its open descriptor. Undefined for anything else (gone, swapped, not a file).
 */
async function loadFile(ws: Workspace, dir: FileHandle, name: string): Promise<Loaded> {
  const fd = await openFd(at(dir, name), FILE_FLAGS).catch(() => undefined);
  if (fd === undefined) return undefined;
  let keep = false;
  try {
    const st = await fstatFd(fd, { bigint: true });
    if (!st.isFile() || (st.nlink > 1n && Number(st.uid) !== ws.ownUid)) return undefined;
    const size = Number(st.size);
    if (size > READ_AHEAD_BYTES) {
      keep = true;
      return { st, fd };
    }
    const data = Buffer.allocUnsafe(size);
    let got = 0;
    while (got < size) {
      const { bytesRead } = await readFd(fd, data, got, size - got, null);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    data.fill(0, got);
    return { st, data };
  } catch {
    return undefined;
  } finally {
    // Closing a regular file of a local file system never waits on the disk: no pool round trip for it.
    if (!keep) closeSync(fd);
  }
}

async function packDirectory(pack: tar.Pack, ws: Workspace, dir: FileHandle, report: PackReport, prefix: string, ahead: Ahead): Promise<void> {
  const dirents: Dirent[] = (await readdir(at(dir, '.'), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const loads = new Map<number, Promise<Loaded>>();
  let next = 0;
  const readAhead = (from: number): void => {
    next = Math.max(next, from);
    for (; next < dirents.length && ahead.inFlight < READ_AHEAD; next++) {
      if (!dirents[next]!.isFile()) continue;
      ahead.inFlight++;
      loads.set(next, loadFile(ws, dir, dirents[next]!.name));
    }
  };
  try {
    for (let i = 0; i < dirents.length; i++) {
      if (pack.destroyed) return;
      const d = dirents[i]!;
      const rel = `${prefix}${d.name}`;
      if (d.isFile()) {
        readAhead(i);
        const started = loads.get(i);
        if (started) {
          loads.delete(i);
          ahead.inFlight--;
        }
        const file = await (started ?? loadFile(ws, dir, d.name));
        // Later files are read while this one goes into the pack.
        readAhead(i + 1);
        if (!file) {
          report.skipped++;
          continue;
        }
        try {
          report.entries++;
          await entry(
            pack,
            { name: rel, type: 'file', mode: Number(file.st.mode) & 0o777, mtime: new Date(Number(file.st.mtimeMs)), size: Number(file.st.size) },
            file,
          );
        } finally {
          if (file.fd !== undefined) closeSync(file.fd);
        }
      } else if (d.isDirectory()) {
        let sub: FileHandle;
        try {
          sub = await openDirAt(dir, d.name, rel);
        } catch {
          // Swapped for a link or removed since it was listed: left out, like any entry that is not a directory.
          report.skipped++;
          continue;
        }
        try {
          const st = await sub.stat({ bigint: true });
          report.entries++;
          await entry(pack, { name: `${rel}/`, type: 'directory', mode: Number(st.mode) & 0o777, mtime: new Date(Number(st.mtimeMs)) });
          await packDirectory(pack, ws, sub, report, `${rel}/`, ahead);
        } finally {
          await sub.close();
        }
      } else if (d.isSymbolicLink()) {
        const st = await lstat(at(dir, d.name), { bigint: true }).catch(() => undefined);
        const target = st?.isSymbolicLink() ? await readlink(at(dir, d.name)).catch(() => undefined) : undefined;
        if (!st || target === undefined) continue;
        report.entries++;
        await entry(pack, { name: rel, type: 'symlink', mode: 0o777, mtime: new Date(Number(st.mtimeMs)), linkname: target });
      } else {
        // FIFOs, sockets, devices: never opened.
        report.skipped++;
      }
    }
  } finally {
    // A pack ended early (destroyed, failed) leaves read-aheads behind: their descriptors are closed when they land.
    for (const load of loads.values()) {
      ahead.inFlight--;
      void load.then((file) => {
        if (file?.fd !== undefined) closeSync(file.fd);
      });
    }
  }
}

/** One entry into the pack, with exactly `header.size` bytes of the file when given; resolves once the pack took it. */
async function entry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], file?: NonNullable<Loaded>): Promise<void> {
  let done!: (err?: Error | null) => void;
  const taken = new Promise<void>((resolve, reject) => {
    done = (err) => (err ? reject(err) : resolve());
  });
  if (file?.data) {
    pack.entry(header, file.data, done);
    return taken;
  }
  const sink = pack.entry(header, done);
  if (file?.fd !== undefined) {
    let left = header.size ?? 0;
    while (left > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
      const { bytesRead } = await readFd(file.fd, buf, 0, buf.length, null);
      const chunk = bytesRead === 0 ? Buffer.alloc(left) : buf.subarray(0, bytesRead);
      left -= chunk.length;
      if (!sink.write(chunk)) await Promise.race([once(sink, 'drain'), taken]);
    }
  }
  sink.end(undefined);
  await taken;
}

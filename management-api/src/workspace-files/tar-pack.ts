// A workspace directory as a tar stream packed by tar-stream: regular files, directories and links as links, walked by descriptors; nothing else is packed.
import { constants } from 'node:fs';
import { open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, openDirAt } from './dir-fd.js';

/** What a pack wrote and skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
}

const CHUNK = 1 << 20;

/**
 * The tar of the directory `dir` (open; the caller closes it once the stream closed). Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked to be the file
 * listed; one that shrinks while read is padded with zeros to its listed size, one that grows is
 * cut to it (a tar header states the size first). Long and non-ASCII names go in pax records.
 */
export function packTar(ws: Workspace, dir: FileHandle, report: PackReport): Readable {
  const pack = tar.pack();
  void (async () => {
    try {
      await packDirectory(pack, ws, dir, report, '');
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  // A node stream for fastify and fetch; tar-stream's own is a streamx one.
  return Readable.from(pack, { objectMode: false, highWaterMark: CHUNK });
}

async function packDirectory(pack: tar.Pack, ws: Workspace, dir: FileHandle, report: PackReport, prefix: string): Promise<void> {
  for (const name of (await readdir(at(dir, '.'))).sort()) {
    if (pack.destroyed) return;
    const st = await lstatAt(dir, name);
    if (!st) continue;
    const rel = `${prefix}${name}`;
    const mtime = new Date(Number(st.mtimeMs));
    const mode = Number(st.mode) & 0o777;
    if (st.isDirectory()) {
      let sub: FileHandle;
      try {
        sub = await openDirAt(dir, name, rel);
      } catch {
        // Swapped for a link or removed since it was listed: left out, like any entry that is not a directory.
        report.skipped++;
        continue;
      }
      try {
        report.entries++;
        await entry(pack, { name: `${rel}/`, type: 'directory', mode, mtime });
        await packDirectory(pack, ws, sub, report, `${rel}/`);
      } finally {
        await sub.close();
      }
    } else if (st.isSymbolicLink()) {
      const target = await readlink(at(dir, name)).catch(() => undefined);
      if (target === undefined) continue;
      report.entries++;
      await entry(pack, { name: rel, type: 'symlink', mode: 0o777, mtime, linkname: target });
    } else if (st.isFile() && !(st.nlink > 1n && Number(st.uid) !== ws.ownUid)) {
      const handle = await open(at(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY).catch(() => undefined);
      if (!handle) {
        report.skipped++;
        continue;
      }
      try {
        const now = await handle.stat({ bigint: true });
        if (now.ino !== st.ino || !now.isFile()) {
          report.skipped++;
          continue;
        }
        report.entries++;
        await entry(pack, { name: rel, type: 'file', mode, mtime, size: Number(st.size) }, handle);
      } finally {
        await handle.close();
      }
    } else {
      report.skipped++;
    }
  }
}

/** One entry into the pack, with exactly `header.size` bytes of `handle` when given; resolves once the pack took it. */
async function entry(pack: tar.Pack, header: Parameters<tar.Pack['entry']>[0], handle?: FileHandle): Promise<void> {
  let done!: (err?: Error | null) => void;
  const taken = new Promise<void>((resolve, reject) => {
    done = (err) => (err ? reject(err) : resolve());
  });
  const sink = pack.entry(header, done);
  if (handle) {
    let left = header.size ?? 0;
    while (left > 0) {
      const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
      const { bytesRead } = await handle.read(buf, 0, buf.length, null);
      const chunk = bytesRead === 0 ? Buffer.alloc(left) : buf.subarray(0, bytesRead);
      left -= chunk.length;
      if (!sink.write(chunk)) await Promise.race([once(sink, 'drain'), taken]);
    }
    sink.end(undefined);
  }
  await taken;
}

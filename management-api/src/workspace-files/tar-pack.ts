// A workspace directory as a tar stream: regular files, directories and links as links, walked by descriptors; nothing else is packed.
import { constants } from 'node:fs';
import { open, readdir, readlink, type FileHandle } from 'node:fs/promises';
import type { Workspace } from './agent-workspace.js';
import { at, lstatAt, openDirAt } from './dir-fd.js';
import { END, encodeHeader, padding } from './tar-format.js';

/** What a pack skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
}

const CHUNK = 1 << 20;

/**
 * The entries under the directory `dir` (open; the caller closes it), as tar blocks. Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked to be the file
 * listed; one that shrinks while read is padded with zeros to its listed size, one that grows is
 * cut to it (a tar header states the size first).
 */
export async function* packDirectory(ws: Workspace, dir: FileHandle, report: PackReport, prefix = ''): AsyncGenerator<Buffer> {
  for (const name of (await readdir(at(dir, '.'))).sort()) {
    const st = await lstatAt(dir, name);
    if (!st) continue;
    const rel = `${prefix}${name}`;
    const mtime = Number(st.mtimeMs) / 1000;
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
        yield encodeHeader({ name: `${rel}/`, type: '5', mode, size: 0, mtime });
        yield* packDirectory(ws, sub, report, `${rel}/`);
      } finally {
        await sub.close();
      }
    } else if (st.isSymbolicLink()) {
      const target = await readlink(at(dir, name)).catch(() => undefined);
      if (target === undefined) continue;
      report.entries++;
      yield encodeHeader({ name: rel, type: '2', mode: 0o777, size: 0, mtime, linkname: target });
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
        const size = Number(st.size);
        report.entries++;
        yield encodeHeader({ name: rel, type: '0', mode, size, mtime });
        yield* fileBlocks(handle, size);
      } finally {
        await handle.close();
      }
    } else {
      report.skipped++;
    }
  }
}

/** The whole archive of `dir`, end blocks included. */
export async function* packArchive(ws: Workspace, dir: FileHandle, report: PackReport): AsyncGenerator<Buffer> {
  yield* packDirectory(ws, dir, report);
  yield END;
}

async function* fileBlocks(handle: FileHandle, size: number): AsyncGenerator<Buffer> {
  let left = size;
  while (left > 0) {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK, left));
    const { bytesRead } = await handle.read(buf, 0, buf.length, null);
    if (bytesRead === 0) {
      yield Buffer.alloc(left);
      break;
    }
    left -= bytesRead;
    yield buf.subarray(0, bytesRead);
  }
  yield padding(size);
}

// A workspace directory walked into a tar-stream pack with synchronous file calls (in the tar worker): regular files, directories and links as links; nothing else is packed.
import { closeSync, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, type Dirent } from 'node:fs';
import type * as tar from 'tar-stream';
import { atFd, DIR_FLAGS, openFileAtSync } from './dir-fd.js';

/** What a pack wrote and skipped: special files and files linked in from elsewhere are left out, and counted. */
export interface PackReport {
  entries: number;
  skipped: number;
}

/** Awaited before each entry: waits while the reader has no room, and throws once the pack is called off. */
export type Pace = () => Promise<void>;

/** Files up to this size are read whole and handed to the pack as one buffer; a larger one goes in CHUNK steps. */
const WHOLE_BYTES = 1 << 20;
const CHUNK = 1 << 20;

type Header = Parameters<tar.Pack['entry']>[0];

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Pack the directory open as `dirFd` (the caller keeps it open until this settles). Names are
 * relative to it, directories end in `/`; modes keep their permission bits only; owners are
 * absent. A file is read from a descriptor opened with O_NOFOLLOW and checked (fstat) to be a
 * regular file, and one of another owner with several links (linked in, not made here) is left
 * out; one that shrinks while read is padded with zeros to its size when opened, one that grows is
 * cut to it (a tar header states the size first). Long and non-ASCII names go in pax records.
 */
export async function packDirectory(pack: tar.Pack, dirFd: number, ownUid: number, report: PackReport, pace: Pace, prefix = ''): Promise<void> {
  const dirents = readdirSync(atFd(dirFd, '.'), { withFileTypes: true }).sort(byName);
  for (const d of dirents) {
    await pace();
    const rel = `${prefix}${d.name}`;
    if (d.isFile()) {
      if (!(await packFile(pack, dirFd, d.name, rel, ownUid, pace))) report.skipped++;
      else report.entries++;
    } else if (d.isDirectory()) {
      let sub: number;
      try {
        sub = openSync(atFd(dirFd, d.name), DIR_FLAGS);
      } catch {
        // Swapped for a link or removed since it was listed: left out, like any entry that is not a directory.
        report.skipped++;
        continue;
      }
      try {
        const st = fstatSync(sub);
        report.entries++;
        await entry(pack, { name: `${rel}/`, type: 'directory', mode: st.mode & 0o777, mtime: st.mtime });
        await packDirectory(pack, sub, ownUid, report, pace, `${rel}/`);
      } finally {
        closeSync(sub);
      }
    } else if (d.isSymbolicLink()) {
      let link: { mtime: Date; target: string } | undefined;
      try {
        const st = lstatSync(atFd(dirFd, d.name));
        if (st.isSymbolicLink()) link = { mtime: st.mtime, target: readlinkSync(atFd(dirFd, d.name)) };
      } catch {
        link = undefined;
      }
      if (!link) continue;
      report.entries++;
      await entry(pack, { name: rel, type: 'symlink', mode: 0o777, mtime: link.mtime, linkname: link.target });
    } else {
      // FIFOs, sockets, devices: never opened.
      report.skipped++;
    }
  }
}

/** One regular file into the pack; false when it is left out (gone, swapped, not a file, linked in). */
async function packFile(pack: tar.Pack, dirFd: number, name: string, rel: string, ownUid: number, pace: Pace): Promise<boolean> {
  const fd = openFileAtSync(dirFd, name);
  if (fd === undefined) return false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (st.nlink > 1 && st.uid !== ownUid)) return false;
    const header: Header = { name: rel, type: 'file', mode: st.mode & 0o777, mtime: st.mtime, size: st.size };
    if (st.size <= WHOLE_BYTES) {
      await entry(pack, header, readUpTo(fd, st.size));
      return true;
    }
    // A large file in steps, each taken by the pack before the next is read.
    let done!: (err?: Error | null) => void;
    const taken = new Promise<void>((resolve, reject) => {
      done = (err) => (err ? reject(err) : resolve());
    });
    // Called off midway (pace throws), nothing awaits this any more: should the entry still fail, that is no unhandled rejection in the shared worker.
    taken.catch(() => undefined);
    const sink = pack.entry(header, done);
    for (let left = st.size; left > 0; ) {
      await pace();
      const chunk = readUpTo(fd, Math.min(CHUNK, left));
      left -= chunk.length;
      if (!sink.write(chunk)) await Promise.race([new Promise<void>((resolve) => sink.once('drain', () => resolve())), taken]);
    }
    sink.end(undefined);
    await taken;
    return true;
  } finally {
    closeSync(fd);
  }
}

/** `size` bytes from the descriptor's position: what it holds, zeros after an early end. */
function readUpTo(fd: number, size: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, data, got, size - got, null);
    if (n === 0) break;
    got += n;
  }
  data.fill(0, got);
  return data;
}

/** An entry without a body, or with all of it; resolves once the pack took it. */
function entry(pack: tar.Pack, header: Header, data?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error | null) => (err ? reject(err) : resolve());
    if (data) pack.entry(header, data, done);
    else pack.entry(header, done);
  });
}

// A minimal streaming tar writer (ustar with pax headers for long names): the test image builder
// writes its layers with it, so ownership and modes are set per entry without root or GNU tar.
import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** One entry of a layer. Paths are relative to the image root, without a leading slash. */
export type TarEntry =
  | { type: 'dir'; path: string; mode: number; uid: number; gid: number }
  | { type: 'symlink'; path: string; target: string; uid: number; gid: number }
  | { type: 'file'; path: string; mode: number; uid: number; gid: number; size: number; source: string }
  | { type: 'file'; path: string; mode: number; uid: number; gid: number; size: number; content: Buffer };

// Fixed, like the Nix image's layers: identical inputs give identical bytes (and layer ids).
const MTIME = 1;
const BLOCK = 512;

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, type: string, opts: { mode: number; uid: number; gid: number; size: number; linkname?: string }): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name.slice(0, 100), 0, 'utf8');
  h.write(octal(opts.mode & 0o7777, 8), 100);
  h.write(octal(opts.uid, 8), 108);
  h.write(octal(opts.gid, 8), 116);
  h.write(octal(opts.size, 12), 124);
  h.write(octal(MTIME, 12), 136);
  h.write('        ', 148);
  h.write(type, 156);
  if (opts.linkname) h.write(opts.linkname.slice(0, 100), 157, 'utf8');
  h.write('ustar\u000000', 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${octal(sum, 7)} `, 148);
  return h;
}

/** A pax record "<len> key=value\n", whose length counts itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

/** Writes tar entries to a file descriptor and hashes everything written (the layer's diff id). */
export class TarWriter {
  private readonly hash: Hash = createHash('sha256');
  private written = 0;
  private readonly chunk = Buffer.alloc(1 << 20);

  constructor(private readonly fd: number) {}

  private out(buf: Buffer): void {
    let off = 0;
    while (off < buf.length) off += writeSync(this.fd, buf, off);
    this.hash.update(buf);
    this.written += buf.length;
  }

  private pad(size: number): void {
    const rest = size % BLOCK;
    if (rest) this.out(Buffer.alloc(BLOCK - rest));
  }

  /** Append one entry; a file's source is read from disk in chunks. */
  add(entry: TarEntry): void {
    const name = entry.type === 'dir' ? `${entry.path}/` : entry.path;
    const linkname = entry.type === 'symlink' ? entry.target : undefined;
    const pax =
      (Buffer.byteLength(name) > 100 ? paxRecord('path', name) : '') + (linkname && Buffer.byteLength(linkname) > 100 ? paxRecord('linkpath', linkname) : '');
    if (pax) {
      const body = Buffer.from(pax);
      this.out(header('PaxHeader', 'x', { mode: 0o644, uid: 0, gid: 0, size: body.length }));
      this.out(body);
      this.pad(body.length);
    }
    const mode = entry.type === 'symlink' ? 0o777 : entry.mode;
    const size = entry.type === 'file' ? entry.size : 0;
    const type = entry.type === 'dir' ? '5' : entry.type === 'symlink' ? '2' : '0';
    this.out(header(name, type, { mode, uid: entry.uid, gid: entry.gid, size, ...(linkname ? { linkname } : {}) }));
    if (entry.type !== 'file') return;
    if ('content' in entry) this.out(entry.content);
    else this.copy(entry.source, entry.size);
    this.pad(size);
  }

  private copy(source: string, size: number): void {
    const fd = openSync(source, 'r');
    try {
      let left = size;
      while (left > 0) {
        const n = readSync(fd, this.chunk, 0, Math.min(this.chunk.length, left), null);
        if (n === 0) throw new Error(`${source} shrank while it was being archived (expected ${size} bytes)`);
        this.out(this.chunk.subarray(0, n));
        left -= n;
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Write the end-of-archive blocks; returns the sha256 (hex) and size of everything written. */
  finish(): { sha256: string; size: number } {
    this.out(Buffer.alloc(BLOCK * 2));
    return { sha256: this.hash.digest('hex'), size: this.written };
  }
}

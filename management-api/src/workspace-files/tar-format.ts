// The tar format as the files API reads and writes it: ustar headers, pax records for long names, GNU long-name entries read.
export const BLOCK = 512;

/** One header as read: names already joined from pax or GNU long-name records. */
export interface TarHeader {
  name: string;
  /** '0' file, '5' directory, '2' symbolic link, '1' hard link, others as the format defines. */
  type: string;
  mode: number;
  size: number;
  linkname: string;
}

function octal(n: number, width: number): string {
  return `${n.toString(8).padStart(width - 1, '0')}\0`;
}

/** A header block; uid, gid and owner names are left empty (ownership is not exposed). */
function block(name: string, type: string, mode: number, size: number, mtime: number, linkname = ''): Buffer {
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode & 0o7777, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(Math.max(0, Math.floor(mtime)), 12), 136);
  h.write('        ', 148);
  h.write(type, 156);
  h.write(linkname, 157, 100, 'utf8');
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

/** Zero bytes that round `size` up to a whole block. */
export function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return rest ? Buffer.alloc(BLOCK - rest) : Buffer.alloc(0);
}

/** The header blocks of one entry (a pax header first when a name or target does not fit, or a size is over 8 GiB). */
export function encodeHeader(entry: { name: string; type: '0' | '5' | '2'; mode: number; size: number; mtime: number; linkname?: string }): Buffer {
  const { name, linkname = '' } = entry;
  let pax = '';
  if (Buffer.byteLength(name) > 100) pax += paxRecord('path', name);
  if (Buffer.byteLength(linkname) > 100) pax += paxRecord('linkpath', linkname);
  if (entry.size >= 8 ** 11) pax += paxRecord('size', String(entry.size));
  const main = block(name.slice(0, 100), entry.type, entry.mode, entry.size >= 8 ** 11 ? 0 : entry.size, entry.mtime, linkname.slice(0, 100));
  if (!pax) return main;
  const body = Buffer.from(pax);
  return Buffer.concat([block('PaxHeader', 'x', 0o644, body.length, entry.mtime), body, padding(body.length), main]);
}

/** Two zero blocks end an archive. */
export const END = Buffer.alloc(BLOCK * 2);

/** A header block's fields, its checksum checked; null for a zero block. Throws a message on a malformed one. */
export function decodeBlock(h: Buffer): TarHeader | null {
  if (h.every((b) => b === 0)) return null;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  if (readNumber(h, 148, 8) !== sum) throw new Error('a header checksum does not match (not a tar, or a damaged one)');
  const field = (off: number, len: number) => {
    const raw = h.subarray(off, off + len);
    const end = raw.indexOf(0);
    return raw.subarray(0, end < 0 ? len : end).toString('utf8');
  };
  const magic = field(257, 6);
  const prefix = magic.startsWith('ustar') ? field(345, 155) : '';
  const name = field(0, 100);
  return {
    name: prefix ? `${prefix}/${name}` : name,
    type: String.fromCharCode(h[156]!) === '\0' ? '0' : String.fromCharCode(h[156]!),
    mode: readNumber(h, 100, 8),
    size: readNumber(h, 124, 12),
    linkname: field(157, 100),
  };
}

/** An octal field, or a base-256 one (high bit set), as a number; a value past 2^53 reads as Infinity (over every limit). */
function readNumber(h: Buffer, off: number, len: number): number {
  if (h[off]! & 0x80) {
    let n = h[off]! & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + h[off + i]!;
    return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY;
  }
  const text = h
    .subarray(off, off + len)
    .toString('latin1')
    .replace(/[\0 ]+$/u, '')
    .trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) throw new Error(`a header number field holds ${JSON.stringify(text)}`);
  return Number.parseInt(text, 8);
}

/** The records of a pax header body. */
export function parsePax(body: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let off = 0;
  while (off < body.length) {
    const space = body.indexOf(0x20, off);
    if (space < 0) break;
    const len = Number.parseInt(body.subarray(off, space).toString('latin1'), 10);
    if (!Number.isInteger(len) || len <= 0 || off + len > body.length) throw new Error('a pax header record is malformed');
    const record = body.subarray(space + 1, off + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    off += len;
  }
  return out;
}

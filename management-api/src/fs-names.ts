// File names as the kernel has them (any bytes but '/' and NUL) carried in strings without loss: each byte that is not part of valid UTF-8 is held as a lone surrogate U+DC80–U+DCFF, and turned back into that byte where a name meets the filesystem.
import { opendirSync, readlinkSync, type Dirent, type PathLike } from 'node:fs';
import { readlink } from 'node:fs/promises';

/**
 * Why: Node decodes a name that is not valid UTF-8 with U+FFFD in place of its bytes, and the
 * string that comes back names nothing, so a walk could neither read nor remake such a file (a
 * snapshot left it out, a restore lost it). Python's "surrogateescape" solves the same problem the
 * same way: a valid name is its own string, and an invalid byte b becomes U+DC00 + b (always ≥
 * 0x80, never '/' or NUL). Valid UTF-8 never encodes a surrogate, so the mapping goes both ways
 * exactly, and JSON keeps lone surrogates as `\udcXX` escapes, so entries files hold such names
 * as they hold any other.
 */

/** A lone surrogate in the escape range: with the `u` flag a surrogate pair is one code point and never matches. */
const ESCAPED = /[\uDC80-\uDCFF]/u;

/** The name `bytes` as a string: itself when valid UTF-8, else with each invalid byte escaped. */
export function decodeName(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  // Node's decoder answers U+FFFD for every invalid sequence: without one, the bytes were valid.
  if (!text.includes('\uFFFD')) return text;
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const length = validSequenceAt(bytes, i);
    if (length === 0) {
      out += String.fromCharCode(0xdc00 + bytes[i]!);
      i++;
    } else {
      out += bytes.toString('utf8', i, i + length);
      i += length;
    }
  }
  return out;
}

/** The bytes of name `name` ({@link decodeName}'s inverse). */
export function encodeName(name: string): Buffer {
  if (!ESCAPED.test(name)) return Buffer.from(name, 'utf8');
  const parts: Buffer[] = [];
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    parts.push(cp >= 0xdc80 && cp <= 0xdcff ? Buffer.of(cp - 0xdc00) : Buffer.from(ch, 'utf8'));
  }
  return Buffer.concat(parts);
}

/** `path` as the filesystem calls take it: the string itself unless it holds an escaped byte. */
export function fsPath(path: string): string | Buffer {
  return ESCAPED.test(path) ? encodeName(path) : path;
}

/**
 * Options that make `opendir` list names as bytes (Node takes 'buffer' there as readdir does;
 * its types name only text encodings). Each entry's name then goes through {@link nameOf}.
 */
export const BYTE_NAMES = { encoding: 'buffer' as BufferEncoding } as const;

/** A listed entry's name as {@link decodeName} has it, whether it was listed as bytes or as text. */
export function nameOf(entry: { name: string | Buffer }): string {
  return typeof entry.name === 'string' ? entry.name : decodeName(entry.name);
}

/** True when `name` holds a byte that is not UTF-8 (escaped). */
export const hasEscapedBytes = (name: string): boolean => ESCAPED.test(name);

/** How many bytes `name` is on disk (an escaped byte is one; Buffer.byteLength would count three). */
export const nameBytes = (name: string): number => (ESCAPED.test(name) ? encodeName(name).length : Buffer.byteLength(name));

/**
 * The longest start of `name`, in whole characters, that is at most `most` bytes on disk (an
 * escaped byte is one). For a name made from another (a temporary file beside it): a name may be
 * 255 bytes, the kernel's limit, so one made longer from it would fail, and a cut in UTF-16 units
 * counts a 3- or 4-byte character as 1 or 2, or splits it.
 */
export function namePrefix(name: string, most: number): string {
  let out = '';
  let bytes = 0;
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    const size = cp >= 0xdc80 && cp <= 0xdcff ? 1 : Buffer.byteLength(ch);
    if (bytes + size > most) break;
    out += ch;
    bytes += size;
  }
  return out;
}

/**
 * The entries of directory `dir`, each name as {@link decodeName} has it, with file types,
 * synchronously (the workers' walks), or undefined when the
 * directory holds more than `most` entries. Read a few hundred at a time and stopped as soon as
 * there are more: a directory of millions of names costs at most `most` of them, where a whole
 * listing would hold them all (and in memory outside a worker's heap limit while it is read).
 */
export function readdirEntriesSync(dir: PathLike, most: number): Dirent[] | undefined {
  const listed = listSync(dir, most, 'utf8');
  if (!listed?.some((d) => d.name.includes('\uFFFD'))) return listed;
  return listSync(dir, most, 'buffer')?.map((d) => {
    // The entry's type methods read a field of its own; only its name is replaced.
    (d as unknown as { name: string }).name = decodeName(d.name as unknown as Buffer);
    return d;
  });
}

/** The entries of `dir`, names in `encoding`; undefined past `most`. */
function listSync(dir: PathLike, most: number, encoding: 'utf8' | 'buffer'): Dirent[] | undefined {
  const listing = opendirSync(dir, { bufferSize: 256, encoding: encoding as BufferEncoding });
  try {
    const out: Dirent[] = [];
    for (let d = listing.readSync(); d !== null; d = listing.readSync()) {
      if (out.length === most) return undefined;
      out.push(d);
    }
    return out;
  } finally {
    listing.closeSync();
  }
}

/** The target of link `link`, as {@link decodeName} has it (a target is bytes as a name is). */
export function readlinkNameSync(link: PathLike): string {
  return decodeName(readlinkSync(link, { encoding: 'buffer' }));
}

/** {@link readlinkNameSync}, asynchronously. */
export async function readlinkName(link: PathLike): Promise<string> {
  return decodeName(await readlink(link, { encoding: 'buffer' }));
}

/**
 * How many bytes the well-formed UTF-8 sequence at `i` takes (Unicode's table 3-7: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0 when the byte there starts none.
 */
function validSequenceAt(b: Buffer, i: number): number {
  const lead = b[i]!;
  if (lead < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (lead >= 0xc2 && lead <= 0xdf) return cont(1) ? 2 : 0;
  if (lead === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((lead >= 0xe1 && lead <= 0xec) || lead === 0xee || lead === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (lead === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (lead === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (lead === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

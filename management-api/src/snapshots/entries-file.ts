// A snapshot's entries file: JSON lines of entries (one per line, in walk order; written by the capture), checked against the sha256 its summary records before anything trusts it.
import { createHash } from 'node:crypto';
import { checkEntryPath, type SnapshotEntry } from './snapshot-manifest.js';

const HASH = /^[0-9a-f]{64}$/;

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The entries of `text`, refused when its hash is not `sha256` or an entry is malformed (a torn or edited file). */
export function parseEntries(text: Buffer, sha256: string, shown: string): SnapshotEntry[] {
  if (sha256Hex(text) !== sha256) throw new Error(`snapshot entries ${shown} do not match their recorded sha256: the store is damaged`);
  // One parse of the lines as an array: a JSON line holds no raw newline, and one call is several times faster than one per line.
  const body = text.toString('utf8').trimEnd();
  const entries = (body === '' ? [] : JSON.parse(`[${body.replace(/\n/g, ',')}]`)) as SnapshotEntry[];
  for (const e of entries) checkEntry(e, shown);
  return entries;
}

/** Refuse an entry whose path is not a plain relative one or whose chunk hashes are malformed. */
export function checkEntry(e: SnapshotEntry, shown: string): void {
  checkEntryPath(e.path);
  if (e.type === 'file' && !e.chunks.every((c) => HASH.test(c))) throw new Error(`snapshot entries ${shown}: a chunk hash is malformed`);
}

/**
 * The entries file's bytes for `lines`, each ended by a newline, in memory of their own (never a
 * view of Node's shared pool, so a thread can transfer them). Why not `join` and `TextEncoder`:
 * for a second snapshot of 54,000 files (13 MB of lines, nearly all reused as they were) those two
 * took 25 ms of the capture's 220 here, the most after its lstats; writing each line into one
 * buffer takes 7. A line with a character beyond ASCII (a name of the agent's) sends the whole the
 * general way: the buffer is sized by characters, which such a line outgrows.
 */
export function encodeLines(lines: readonly string[]): Uint8Array {
  let chars = 0;
  let longest = 0;
  for (const line of lines) {
    chars += line.length + 1;
    if (line.length > longest) longest = line.length;
  }
  // Room for the longest line at 3 bytes a character besides: a line's write is never cut short, so the bytes it wrote tell whether it was ASCII.
  const out = Buffer.alloc(chars + 3 * longest);
  let at = 0;
  for (const line of lines) {
    const wrote = out.write(line, at, 'utf8');
    if (wrote !== line.length) return new TextEncoder().encode(`${lines.join('\n')}\n`);
    at += wrote;
    out[at++] = 0x0a;
  }
  return out.subarray(0, at);
}

/** The size of chunk `i` of a file of `size` bytes cut in `chunkBytes`. */
export function chunkSize(size: number, i: number, chunkBytes: number): number {
  return Math.min(chunkBytes, size - i * chunkBytes);
}

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
  for (const e of entries) {
    checkEntryPath(e.path);
    if (e.type === 'file' && !e.chunks.every((c) => HASH.test(c))) throw new Error(`snapshot entries ${shown}: a chunk hash is malformed`);
  }
  return entries;
}

/** The size of chunk `i` of a file of `size` bytes cut in `chunkBytes`. */
export function chunkSize(size: number, i: number, chunkBytes: number): number {
  return Math.min(chunkBytes, size - i * chunkBytes);
}

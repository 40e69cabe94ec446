// A snapshot's entries file: JSON lines of entries, checked against the sha256 its summary records before anything trusts it.
import { createHash } from 'node:crypto';
import { checkEntryPath, type SnapshotEntry } from './snapshot-manifest.js';

/** One entry per line, so a reader never holds more than the text and the array. */
export function serializeEntries(entries: readonly SnapshotEntry[]): Buffer {
  return Buffer.from(`${entries.map((e) => JSON.stringify(e)).join('\n')}\n`);
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The entries of `text`, refused when its hash is not `sha256` or an entry is malformed (a torn or edited file). */
export function parseEntries(text: Buffer, sha256: string, shown: string): SnapshotEntry[] {
  if (sha256Hex(text) !== sha256) throw new Error(`snapshot entries ${shown} do not match their recorded sha256: the store is damaged`);
  const entries: SnapshotEntry[] = [];
  for (const line of text.toString('utf8').split('\n')) {
    if (line === '') continue;
    const e = JSON.parse(line) as SnapshotEntry;
    checkEntryPath(e.path);
    if (e.type === 'file' && !e.chunks.every((c) => /^[0-9a-f]{64}$/.test(c))) throw new Error(`snapshot entries ${shown}: a chunk hash is malformed`);
    entries.push(e);
  }
  return entries;
}

/** The size of chunk `i` of a file of `size` bytes cut in `chunkBytes`. */
export function chunkSize(size: number, i: number, chunkBytes: number): number {
  return Math.min(chunkBytes, size - i * chunkBytes);
}

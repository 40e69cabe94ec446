// Damage one stored chunk of a snapshot store in place, as a failing disk would: one byte of it flipped in its pack.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { loadIndex, packFile } from '../../management-api/src/snapshots/object-store.js';

/**
 * Flip one byte (at `at` within the chunk) of the chunk holding exactly `data`, in the pack the
 * store reads it from; returns the pack's name. Flipping the same byte again undoes it.
 */
export function flipChunkByte(storeDir: string, data: Buffer, at = 100): string {
  const hash = createHash('sha256').update(data).digest('hex');
  const loc = loadIndex(storeDir).get(hash);
  if (!loc) throw new Error(`no chunk ${hash} in ${storeDir}`);
  const fd = openSync(packFile(storeDir, loc.pack), 'r+');
  try {
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, loc.offset + at);
    one[0] = one[0]! ^ 0xff;
    writeSync(fd, one, 0, 1, loc.offset + at);
  } finally {
    closeSync(fd);
  }
  return loc.pack;
}

// The chunks a snapshot refers to and their sizes, read from its entries file: what the store's sharing, charges and sweeps count. A large entries file is read in a worker thread, so the API's thread never parses one.
import { readFileSync } from 'node:fs';
import { chunkSize, parseEntries } from './entries-file.js';
import { CHUNK_BYTES, type SnapshotEntry } from './snapshot-manifest.js';
import type { ChunkList, ChunkListJob } from './snapshot-protocol.js';

/**
 * Entries files up to this size are read on the caller's thread: a worker's start (tens of ms)
 * would cost more than their parse. Above it, the parse is the API's problem: 13 MB of entries
 * (54,000 files) held its thread for about 150 ms at a time, 450 ms in all with the garbage it
 * left, at the store's every open, delete and first listing of what snapshots share.
 */
export const INLINE_ENTRIES_BYTES = 1024 * 1024;

const HASH_CHARS = 64;

/** Each distinct chunk of `entries`' files, by hash, with its size. */
export function chunkSizesOf(entries: readonly SnapshotEntry[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const e of entries) if (e.type === 'file') for (let i = 0; i < e.chunks.length; i++) sizes.set(e.chunks[i]!, chunkSize(e.size, i, CHUNK_BYTES));
  return sizes;
}

/**
 * Entries files read by one worker thread at most, in bytes: one start for many snapshots, and what
 * its answers hold at once bounded (a snapshot's chunk list is about a third of its entries file).
 */
export const THREAD_ENTRIES_BYTES = 256 * 1024 * 1024;

/** In the worker: each entries file read and checked against its sha256, its chunks packed for the way back. */
export function readChunkLists(job: ChunkListJob): ChunkList[] {
  return job.files.map((f) => chunkList(chunkSizesOf(parseEntries(readFileSync(f.entriesFile), f.entriesSha256, f.entriesFile))));
}

function chunkList(sizes: Map<string, number>): ChunkList {
  const hashes = Buffer.alloc(sizes.size * HASH_CHARS);
  const packed = new Float64Array(sizes.size);
  let i = 0;
  for (const [hash, size] of sizes) {
    hashes.write(hash, i * HASH_CHARS, 'latin1');
    packed[i++] = size;
  }
  // Bytes, not a string: moved to the API's thread, where a string of them all would be copied while that thread waits (180 ms for seven snapshots of 54,000 files).
  return { hashes, sizes: packed };
}

/** The buffers a list is moved across in. */
export const chunkListTransfer = (lists: readonly ChunkList[]): ArrayBuffer[] =>
  lists.flatMap((l) => [l.hashes.buffer as ArrayBuffer, l.sizes.buffer as ArrayBuffer]);

/** On the API's thread: the list back as a map. */
export function chunkListMap(list: ChunkList): Map<string, number> {
  const hashes = Buffer.from(list.hashes.buffer, list.hashes.byteOffset, list.hashes.byteLength);
  const sizes = new Map<string, number>();
  for (let i = 0; i < list.sizes.length; i++) sizes.set(hashes.toString('latin1', i * HASH_CHARS, (i + 1) * HASH_CHARS), list.sizes[i]!);
  return sizes;
}

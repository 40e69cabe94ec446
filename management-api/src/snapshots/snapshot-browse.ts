// Reading inside a snapshot without building it: one entry by path, a directory's entries, and where a file's chunks are in the store's packs.
import { createHash } from 'node:crypto';
import { chunkSize } from './entries-file.js';
import type { EntriesScan } from './entries-scan.js';
import type { ChunkLocation } from './object-store.js';
import { CHUNK_BYTES, isHoleChunk, type SnapshotEntry } from './snapshot-manifest.js';

/** Find one path in a snapshot's entries file: its entry, a directory's entries with `list`, a file's chunk locations with `locate` (answered by snapshot-reader.ts). */
export interface BrowseJob {
  op: 'browse';
  storeDir: string;
  entriesFile: string;
  entriesSha256: string;
  path: string;
  list: boolean;
  locate: boolean;
}

/** The most entries one listing answers (as the workspace files API: a larger directory says it was cut). */
export const MAX_BROWSE_ENTRIES = 10_000;

/** What a path names in a snapshot. */
export type BrowseResult =
  | { found: true; entry: SnapshotEntry; children?: SnapshotEntry[]; truncated?: boolean; file?: FileChunks }
  /** Nothing there: `blockedBy` is the nearest entry above it that is not a directory (a file or link the path goes through), when there is one. */
  | { found: false; blockedBy?: { path: string; type: SnapshotEntry['type'] } };

/** Where a file's bytes are: each chunk's place in a pack, or null for a whole chunk of zeros (a hole, never stored). */
export interface FileChunks {
  locations: Array<ChunkLocation | null>;
  /** sha256 of the file's chunk list: the same bytes have the same tag, in any snapshot (an ETag). */
  tag: string;
}

/**
 * The entry at `path` ('' for the working directory) in `entries`; with `list`, a directory's own
 * entries by name (at most MAX_BROWSE_ENTRIES); with `locate`, a file's chunk locations, looked
 * up for the file's chunks.
 */
export function browseEntries(
  entries: EntriesScan,
  path: string,
  options: { list?: boolean; locate?: (hashes: readonly string[]) => ReadonlyMap<string, ChunkLocation> },
): BrowseResult {
  const entry = entries.entry(path);
  if (!entry) return notThere(entries, path);
  const result: BrowseResult = { found: true, entry };
  if (options.list && entry.type === 'dir') {
    const children = entries.children(path);
    children.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    result.truncated = children.length > MAX_BROWSE_ENTRIES;
    result.children = children.slice(0, MAX_BROWSE_ENTRIES);
  }
  if (options.locate && entry.type === 'file') result.file = locate(entry, options.locate(entry.chunks));
  return result;
}

/** Why nothing is at `path`: the first entry on the way that is not a directory, if any. */
function notThere(entries: EntriesScan, path: string): BrowseResult {
  const segments = path.split('/');
  for (let i = 1; i < segments.length; i++) {
    const above = segments.slice(0, i).join('/');
    const e = entries.entry(above);
    if (!e) break;
    if (e.type !== 'dir') return { found: false, blockedBy: { path: above, type: e.type } };
  }
  return { found: false };
}

function locate(entry: Extract<SnapshotEntry, { type: 'file' }>, index: ReadonlyMap<string, ChunkLocation>): FileChunks {
  return { locations: chunkPlaces(entry, index), tag: createHash('sha256').update(entry.chunks.join('\n')).digest('hex').slice(0, 32) };
}

/** Where each chunk of file `entry` is in the store's packs, or null for a whole chunk of zeros (a hole, never stored); a chunk missing is damage. */
export function chunkPlaces(entry: Extract<SnapshotEntry, { type: 'file' }>, index: ReadonlyMap<string, ChunkLocation>): Array<ChunkLocation | null> {
  return entry.chunks.map((hash, i) => {
    const size = chunkSize(entry.size, i, CHUNK_BYTES);
    if (isHoleChunk(hash, size)) return null;
    const loc = index.get(hash);
    if (!loc || loc.length !== size) throw new Error(`snapshot chunk ${hash} is missing from the store: the store is damaged`);
    return loc;
  });
}

// What a snapshot is on disk: its summary (the commit point), its entries, and the checks a manifest read back must pass.
import { SNAPSHOT_ID } from '../grammar/snapshot-id.js';

/** Version of the manifest format; a store refuses a manifest of another. */
export const MANIFEST_FORMAT = 1;

/**
 * Files are cut into fixed 1 MiB chunks; a file up to 1 MiB is one chunk. Fixed-size cutting costs
 * nothing beyond the hash, where a content-defined chunker in JavaScript would at least halve the
 * throughput; a source-like workspace changes file by file, and an unchanged file is not even read
 * again (its stat key matches), so what finer chunking would save is small. A large file appended to
 * keeps every chunk but its last.
 */
export const CHUNK_BYTES = 1 << 20;

/**
 * sha256 of a whole chunk of zeros (CHUNK_BYTES of 0x00). A build leaves such a chunk as a hole, so
 * a sparse file comes back sparse: written out, one chunk stored once could make a fork gigabytes
 * larger than the tree it was taken of (a sparse file of 1 GB takes no room).
 */
export const ZERO_CHUNK_SHA256 = '30e14955ebf1352266dc2ff8067e68104607e750abb9d3b36582b8af909fcb58';

const ZEROS = Buffer.alloc(CHUNK_BYTES);

/** ZERO_CHUNK_SHA256 when `data` is a whole chunk of zeros (one compare, no hash: what a hole reads as); undefined otherwise. */
export function zeroChunkHash(data: Buffer): string | undefined {
  return data.length === CHUNK_BYTES && data.equals(ZEROS) ? ZERO_CHUNK_SHA256 : undefined;
}

/** A chunk of `size` bytes with hash `hash` is a whole chunk of zeros: a build leaves it as a hole. */
export const isHoleChunk = (hash: string, size: number): boolean => hash === ZERO_CHUNK_SHA256 && size === CHUNK_BYTES;

/** Bytes of a file's chunks that are whole chunks of zeros: what a build leaves as holes. */
export function holeBytesOf(chunks: readonly string[], size: number): number {
  let holes = 0;
  for (let i = 0; i < chunks.length; i++) if (isHoleChunk(chunks[i]!, Math.min(CHUNK_BYTES, size - i * CHUNK_BYTES))) holes += CHUNK_BYTES;
  return holes;
}

export { SNAPSHOT_ID };

/** A snapshot id as the routes' schemas take it. */
export const snapshotIdSchema = { type: 'string', pattern: SNAPSHOT_ID.source, description: 'A snapshot id (snp_…)' } as const;

/**
 * One entry of a snapshot, by its path relative to the agent's working directory ('' is the directory itself).
 * An entries file holds one a line, written by JSON.stringify with `type` first and `path` second,
 * as every type below declares them: reads find a path by those bytes (entries-scan.ts).
 */
export type SnapshotEntry =
  | {
      type: 'file';
      path: string;
      /** Permission bits only (setuid, setgid and sticky are never recorded). */
      mode: number;
      /** Modification time in nanoseconds since the epoch, as a decimal string (exact, beyond a double's precision). */
      mtimeNs: string;
      size: number;
      /** sha256 (hex) of each chunk, in order. */
      chunks: string[];
      /** dev:ino:size:mtimeNs:ctimeNs when read: the next snapshot of the same agent reuses the chunks of a file whose key is unchanged. */
      key: string;
    }
  | {
      type: 'dir';
      path: string;
      mode: number;
      mtimeNs: string;
      /**
       * dev:ino:mtimeNs:ctimeNs:names of the directory when listed (the number of names it held), '' when
       * it changed just before (racy): the next capture, even by another thread after a restart, takes
       * the entries' names for its listing while the stamp is unchanged and every name was captured.
       * Absent from snapshots made before it was kept.
       */
      key?: string;
    }
  | { type: 'symlink'; path: string; target: string; mtimeNs: string };

/** Figures of one snapshot as it was made. */
/** A filesystem block: what a small file's tail, a directory or a long link's target takes at least. */
export const BLOCK_BYTES = 4096;
const blocks = (n: number) => Math.ceil(n / BLOCK_BYTES) * BLOCK_BYTES;

/** What a file built back allocates: its bytes less the holes the build leaves, in whole blocks (an empty file none). */
export const fileBlockBytes = (e: { size: number; chunks: readonly string[] }): number => blocks(e.size - holeBytesOf(e.chunks, e.size));

/**
 * What a directory of these names allocates, at most: a block at least; past one block, each
 * name's record (ext4: 8 bytes and the name, to 4 bytes) twice over for the room its hashed
 * blocks leave free, and a block for their index (2,000 names of 7 bytes: 11 or 12 blocks on ext4,
 * counted 17).
 */
export const dirBlockBytes = (names: readonly string[]): number => {
  const records = names.reduce((sum, n) => sum + 8 + Math.ceil(Buffer.byteLength(n) / 4) * 4, 0);
  return records <= BLOCK_BYTES ? BLOCK_BYTES : blocks(records * 2) + BLOCK_BYTES;
};

/** A link's target up to 59 bytes lives in its inode (ext4's fast symlink); a longer one takes a block. */
export const linkBlockBytes = (target: string): number => (Buffer.byteLength(target) < 60 ? 0 : BLOCK_BYTES);

export interface SnapshotStats {
  files: number;
  dirs: number;
  symlinks: number;
  /** FIFOs, sockets, devices, and files of other owners linked in: left out. */
  skipped: number;
  /** Sum of the files' sizes. */
  bytes: number;
  /** Of those, bytes in whole chunks of zeros, which a build leaves as holes (ZERO_CHUNK_SHA256); absent from snapshots made before it was counted. */
  holeBytes?: number;
  /**
   * What a copying build allocates: each file's bytes less its holes in whole blocks (each hard
   * link a file of its own), each directory's blocks, each long link's; absent in a snapshot made
   * before it was recorded (build-room.ts then counts a block per entry on top of the bytes).
   */
  buildBytes?: number;
  /** Distinct chunks referenced, and their bytes (what the snapshot holds once deduplicated). */
  chunks: number;
  storedBytes: number;
  /** Chunks and bytes this snapshot wrote to the store (the rest it shares with what was there). */
  addedChunks: number;
  addedBytes: number;
  /** Files whose chunks were taken from the previous snapshot of the agent without reading them (unchanged stat key). */
  reusedFiles: number;
  /** Of reusedFiles, those a helper thread looked at (stat-ahead.ts: a second snapshot of at least 5,000 files, on two cores or more); absent when none. */
  aheadFiles?: number;
  /** Directories unchanged since that snapshot (same inode, mtime, ctime), whose names were taken from it without listing them; absent from snapshots made before it was counted. */
  reusedDirs?: number;
  /** Files that kept changing while read (read three times); kept as last read. */
  changed: number;
  durationMs: number;
}

/** The summary file: what is listed. Written last; a snapshot exists once it is renamed into place. */
export interface SnapshotSummary {
  format: typeof MANIFEST_FORMAT;
  id: string;
  label?: string;
  createdAt: string;
  /** The agent whose working directory it was, and that directory relative to the workspace. */
  agent: { id: string; name: string; cwd: string };
  /** Restored files belong to the agent restored into (its uid on a root box), never to a recorded owner. */
  owner: 'target-agent';
  stats: SnapshotStats;
  /** The first paths of files that kept changing while read, at most 100. */
  changedPaths: string[];
  /** sha256 of the entries file, checked when it is read. */
  entriesSha256: string;
}

/**
 * `items` sorted by their paths segment by segment, a directory right before what it holds (`a`,
 * `a/b`, then `a-c`, which a plain string order puts between them): a NUL, which no name holds,
 * stands for each `/` and sorts before any character.
 */
export function inTreeOrder<T>(items: readonly T[], pathOf: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ key: treeKey(pathOf(item)), item }));
  keyed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return keyed.map((k) => k.item);
}

/** What a path sorts by in path order (inTreeOrder): each `/` a NUL. */
export const treeKey = (path: string): string => path.replaceAll('/', '\u0000');

/** A manifest path: relative, plain segments (the walk produced it; checked again when read back). */
export function checkEntryPath(p: string): void {
  if (p === '') return;
  if (BAD_PATH.test(p)) throw new Error(`snapshot entry path ${JSON.stringify(p)} is not a plain relative path`);
}

/** A leading or doubled slash, a trailing slash, a `.` or `..` segment, a NUL. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL is what is refused
const BAD_PATH = /^\/|\/\/|\/$|(^|\/)\.\.?(\/|$)|\u0000/;

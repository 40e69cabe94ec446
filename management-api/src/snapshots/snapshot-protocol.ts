// Messages between the snapshot service (API thread) and the worker thread that walks, hashes and copies files.
import type { ChunkLocation } from './object-store.js';
import type { SnapshotEntry, SnapshotStats } from './snapshot-manifest.js';
import type { BrowseResult } from './snapshot-browse.js';
import type { SnapshotDiff } from './snapshot-diff.js';

/** Who every entry a build makes is given to (a root box: the agent's uid). */
export interface Owner {
  uid: number;
  gid: number;
}

/** Walk the working directory open as `rootFd` (the API's descriptor: a worker shares the process's), hash and store its files. */
export interface CaptureJob {
  op: 'capture';
  rootFd: number;
  /** Files of several links owned by another uid were linked in from elsewhere: left out, as the files API does. */
  ownUid: number;
  storeDir: string;
  /** The pack its new chunks go to (`tmp/<pack>.pack`, its index `tmp/<pack>.idx`). */
  pack: string;
  /** fsync the pack and its index before answering. */
  durable: boolean;
  /** A file whose ctime is within this many ms of its read gets an empty key: the next snapshot reads it again (capture.ts, RACY_MS). */
  racyMs: number;
  /**
   * Bytes of holes the walk may read through (a sparse file's size beyond its allocated blocks, read
   * as zeros): over it the capture fails with TOO_SPARSE. A sparse file costs its agent's disk budget
   * nothing, so without this bound one agent's workspace of sparse files could keep a capture
   * thread reading zeros for hours (see SnapshotStore.create).
   */
  maxHoleBytes: number;
  /** Entries the walk may meet (capture-entries-cap.ts, MAX_SNAPSHOT_ENTRIES): one more fails the capture with TOO_MANY_ENTRIES, a directory's listing read no further. */
  maxEntries: number;
  /** The previous snapshot of the same agent: files with an unchanged stat key reuse its chunks unread. */
  previous?: { entriesFile: string; entriesSha256: string };
  /**
   * When a clone of the working directory was taken just before the walk (ms since the epoch): the
   * walk says whether the clone holds exactly what it read (CaptureResult.cloneFit).
   */
  clonedAtMs?: number;
  /** With `clonedAtMs`: the clone, open, which the entries changed around that time are compared with. */
  cloneFd?: number;
}

/** Build the tree of a snapshot in `target` (a new directory the worker makes, private until the service moves it). */
export interface MaterializeJob {
  op: 'materialize';
  storeDir: string;
  entriesFile: string;
  entriesSha256: string;
  target: string;
  /** Who every entry is given to (a root box: the agent's uid); the box's own ids when absent. */
  owner?: Owner;
  /** Threads the build may use: its files are split over them when there are enough (materialize.ts). */
  threads: number;
  /** One BigInt64 the build adds each file's bytes to as it writes them (holes left out): what it has written so far (BuildRoom). */
  written?: SharedArrayBuffer;
}

/** Give a fork made from a snapshot's clone (`target`) to `owner`: every entry the snapshot lists (regive-clone.ts). */
export interface RegiveJob {
  op: 'regive-clone';
  target: string;
  entriesFile: string;
  entriesSha256: string;
  owner: Owner;
}

/** Read snapshots' entries files (each checked against its sha256) and answer the chunks each refers to, in the same order (chunk-list.ts). */
export interface ChunkListJob {
  op: 'chunk-list';
  files: Array<{ entriesFile: string; entriesSha256: string }>;
}

/** A snapshot's distinct chunks: their hashes (64 hex characters each, ASCII, one after the other) and their sizes, in the same order; both moved across, not copied. */
export interface ChunkList {
  hashes: Uint8Array;
  sizes: Float64Array;
}

/**
 * One part of a build split over threads: files and links, in directories the coordinator made,
 * below its root (`rootFd`, shared: a worker is a thread of the same process).
 */
export interface MaterializePart {
  op: 'materialize-part';
  storeDir: string;
  rootFd: number;
  entries: Exclude<SnapshotEntry, { type: 'dir' }>[];
  /** Where each chunk of these entries is. */
  chunks: Map<string, ChunkLocation>;
  owner?: Owner;
  /** One Int32 raised by the part that fails first: the others stop at their next entry. */
  stop: SharedArrayBuffer;
  /** MaterializeJob.written, shared by every part. */
  written?: SharedArrayBuffer;
}

/** What a capture found. */
export interface CaptureResult {
  /** The entries file's bytes (serialized in the worker, so no array of entries is cloned across). */
  entriesText: Uint8Array;
  /** Its sha256, which the summary records. */
  entriesSha256: string;
  /** True when new chunks were written (a pack and its index wait in tmp/). */
  packed: boolean;
  stats: Omit<SnapshotStats, 'durationMs'>;
  changedPaths: string[];
  /**
   * True when the clone taken before the walk holds exactly the entries read, as a build of them
   * would make them: nothing changed since it was taken, nothing left out, no setuid, setgid or
   * sticky bit, one owner. Else the clone is not kept.
   */
  cloneFit?: true;
}

/** What a materialisation wrote. */
export interface MaterializeResult {
  files: number;
  dirs: number;
  symlinks: number;
  bytes: number;
  /** Made as a snapshot of the snapshot's clone (btrfs), sharing its bytes, not by copying. */
  cloned?: true;
}

/** A job's answer: its result, or its error with the errno code (ENOSPC is told apart). */
export type JobReply =
  | { ok: true; result: CaptureResult | MaterializeResult | ChunkList[] | SnapshotDiff | BrowseResult | number }
  | { ok: false; message: string; code?: string };

/** A job's failure as its answer: the message, and the errno code when there is one. */
export function failedReply(err: unknown): Extract<JobReply, { ok: false }> {
  const e = err as NodeJS.ErrnoException;
  return { ok: false, message: e.message, ...(e.code ? { code: e.code } : {}) };
}

/** To a capture worker: one capture to run. */
export interface CaptureRequest {
  id: number;
  job: CaptureJob;
}

/** From a capture worker: the answer to request `id`. */
export interface CaptureReply {
  id: number;
  reply: JobReply;
}

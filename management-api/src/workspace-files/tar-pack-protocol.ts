// The messages between packTar (tar-pack.ts) and the tar worker, and the pacing they share.
import type { PackReport } from './tar-pack-walk.js';

/** About how many bytes of tar one message carries. */
export const BATCH_BYTES = 1 << 20;
/** Batches a pack may have on their way before its reader has taken one: 4 MiB held at most per pack. */
export const WINDOW = 4;

/** Pack the directory open as `dirFd`; `ownUid` is whose files are the agent's. */
export interface PackRequest {
  type: 'pack';
  id: number;
  dirFd: number;
  ownUid: number;
  /** Bytes of holes the pack may read through (hole-allowance.ts): the agent's disk budget. */
  maxHoleBytes: number;
}

export type PackToWorker = PackRequest | { type: 'credit'; id: number } | { type: 'abort'; id: number };

/** The last message of a pack, sent once the worker no longer uses its directory descriptor. */
export interface PackDone {
  type: 'done';
  id: number;
  report: PackReport;
  aborted?: true;
  error?: string;
}

export type PackFromWorker = { type: 'data'; id: number; bytes: Uint8Array } | PackDone;

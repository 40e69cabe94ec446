// The messages between packTar (tar-pack.ts) and the tar worker, and the pacing they share.
import type { PackReport } from './tar-pack-walk.js';

/** About how many bytes of tar one message carries. */
export const BATCH_BYTES = 1 << 20;
/** Batches a pack may have on their way before its reader has taken one: 4 MiB held at most per pack. */
export const WINDOW = 4;

/** A pack asked of a tar worker: its `type` names the packer (tar-pack-serve.ts), the rest is the packer's. */
export interface PackJob {
  type: string;
  id: number;
}

/** Pack the directory open as `dirFd`; `ownUid` is whose files are the agent's. */
export interface PackRequest extends PackJob {
  type: 'pack';
  id: number;
  dirFd: number;
  ownUid: number;
  /** Bytes of holes the pack may read through (hole-allowance.ts): the agent's disk budget. */
  maxHoleBytes: number;
}

/**
 * A batch the API's thread is done with (its socket has written it), handed back to be written
 * into again: a batch made anew is fresh memory, and the kernel faults in and zeroes each of its
 * pages as the first read fills it, which cost as much as the read's copy itself.
 */
export interface Recycle {
  type: 'recycle';
  buffer: ArrayBuffer;
}

/** Spare batches the worker keeps for reuse, beyond which a returned one is let go. */
export const SPARE_BATCHES = 2 * WINDOW;

/** What the API's thread says of packs under way: room for one more batch, called off, a batch handed back. */
export type PackControl = { type: 'credit'; id: number } | { type: 'abort'; id: number } | Recycle;

export type PackToWorker = PackJob | PackControl;

/** The last message of a pack, sent once the worker no longer uses the descriptors it was given or opened. */
export interface PackDone {
  type: 'done';
  id: number;
  report: PackReport;
  aborted?: true;
  error?: string;
  /** The failure's code, when it had one (ETOODEEP, ETOOSPARSE, an errno): the caller's status depends on it. */
  code?: string;
}

export type PackFromWorker = { type: 'data'; id: number; bytes: Uint8Array } | PackDone;

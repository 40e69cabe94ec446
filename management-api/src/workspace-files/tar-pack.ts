// A workspace directory as a tar stream: packed in a worker thread the process's packs share (tar-pack-worker.ts), read here as a Node stream.
import path from 'node:path';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import type { FileHandle } from 'node:fs/promises';
import { DEFAULT_MAX_HOLE_BYTES } from './hole-allowance.js';
import type { PackFromWorker, PackJob, PackToWorker } from './tar-pack-protocol.js';
import type { PackReport } from './tar-pack-walk.js';

export type { PackReport } from './tar-pack-walk.js';

/** A pack being read: its stream, and what it still owes the worker. */
interface Job {
  stream: Readable;
  report: PackReport;
  /** Batches taken while the stream was full: credited back to the worker when it is read. */
  owed: number;
  finished: boolean;
  release: () => void;
  /** Settles `started`: at the first batch or the end, or with the error of a pack that failed before any. */
  start: { resolve: () => void; reject: (err: Error) => void };
}

/** A pack under way, as packTar and PackWorker.pack give it. */
export interface Packing {
  /** The tar, in batches of up to BATCH_BYTES. */
  stream: Readable;
  /** Settles once the worker no longer uses the directory's descriptor. */
  released: Promise<void>;
  /**
   * Resolves at the first batch (or the end of an empty pack); rejects with the error of a pack
   * that failed before it sent anything, so its caller can still answer with an error status.
   */
  started: Promise<void>;
}

/**
 * The heap the tar worker may use, by default: a backstop. A pack holds a few dozen names of each
 * directory on its path (listings are streamed, at most MAX_TREE_DEPTH levels) and at most WINDOW
 * batches, and the box packs at most MAX_TAR_DOWNLOADS at once, so the packs in flight need a few
 * MiB each. Should the heap still fill, the worker ends alone (ERR_WORKER_OUT_OF_MEMORY): the packs
 * in flight fail, the next pack starts a new worker, and the box goes on.
 */
export const TAR_HEAP_MIB = 1024;

/**
 * Why a worker: packing in the API's thread took four thread-pool round trips per file (open,
 * fstat, read, close) and a promise chain around each; with synchronous calls in a thread of its
 * own the pack runs about three times faster, and the API's thread only moves megabyte batches
 * to the socket. One worker serves every pack of the process, started on the first and kept.
 */
export class PackWorker {
  readonly #worker: Worker;
  readonly #jobs = new Map<number, Job>();
  /** The batches the worker sent that have not been handed back (recycle): only these may be. */
  readonly #lent = new WeakSet<ArrayBuffer>();
  #nextId = 1;

  constructor(
    onGone: () => void,
    heapMiB = TAR_HEAP_MIB,
    /** The worker's entry module: the workspace downloads' (tar-pack-worker.ts) unless another serves its own packs (servePacks). */
    // Beside this module: .js when built (and bundled), .ts when the tests run the sources.
    script = new URL(`./tar-pack-worker${path.extname(import.meta.url)}`, import.meta.url),
  ) {
    this.#worker = new Worker(script, {
      resourceLimits: { maxOldGenerationSizeMb: heapMiB },
    });
    this.#worker.unref();
    this.#worker.on('message', (message: PackFromWorker) => this.#onMessage(message));
    // An uncaught error ends the worker: its packs fail now, and are released when it has exited.
    // (Marked finished first: a destroyed stream sends no abort to a worker that is going.)
    const failAll = (why: string) => {
      for (const job of this.#jobs.values()) {
        if (job.finished) continue;
        job.finished = true;
        const err = new Error(why);
        job.start.reject(err);
        job.stream.destroy(err);
      }
    };
    this.#worker.on('error', (err) =>
      failAll(
        (err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `the tar worker ran out of its ${heapMiB} MiB heap`
          : `the tar worker failed: ${err.message}`,
      ),
    );
    this.#worker.on('exit', (code) => {
      onGone();
      failAll(`the tar worker exited (code ${code})`);
      // The worker is gone, and with it every use of the callers' descriptors.
      for (const job of this.#jobs.values()) job.release();
      this.#jobs.clear();
    });
  }

  /** The directory open as `dirFd`, packed by the workspace downloads' worker. */
  pack(dirFd: number, ownUid: number, maxHoleBytes: number, report: PackReport): Packing {
    return this.start((id) => ({ type: 'pack', id, dirFd, ownUid, maxHoleBytes }), report);
  }

  /** Any pack the worker's packers know, the request made for its id. */
  start(request: (id: number) => PackJob, report: PackReport): Packing {
    const id = this.#nextId++;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let start!: Job['start'];
    const started = new Promise<void>((resolve, reject) => (start = { resolve, reject }));
    // Its rejection is also the stream's error: a caller that reads only the stream has it there.
    started.catch(() => undefined);
    const send = (message: PackToWorker) => this.#worker.postMessage(message);
    const job: Job = {
      report,
      owed: 0,
      finished: false,
      release,
      start,
      stream: new Readable({
        // Room for the batches the worker may send ahead.
        highWaterMark: 1 << 22,
        read: () => {
          for (; job.owed > 0; job.owed--) send({ type: 'credit', id });
        },
        destroy: (err, callback) => {
          // The client went away, or the pack failed: the walk is called off at its next step.
          if (!job.finished) send({ type: 'abort', id });
          callback(err);
        },
      }),
    };
    this.#jobs.set(id, job);
    if (this.#jobs.size === 1) this.#worker.ref();
    send(request(id));
    return { stream: job.stream, released, started };
  }

  /**
   * Hand a batch of a pack's stream back to the worker to be written into again. Only once nothing
   * uses its bytes any more (a socket's write of it has completed): from this call on the worker
   * owns its memory, and `batch` is left empty here. A buffer that is not one of the worker's
   * batches, or was handed back already, is ignored.
   */
  recycle(batch: Buffer): void {
    const memory = batch.buffer as ArrayBuffer;
    if (!this.#lent.delete(memory)) return;
    this.#worker.postMessage({ type: 'recycle', buffer: memory } satisfies PackToWorker, [memory]);
  }

  #onMessage(message: PackFromWorker): void {
    const job = this.#jobs.get(message.id);
    if (!job) return;
    if (message.type === 'data') {
      job.start.resolve();
      if (job.stream.destroyed) return;
      this.#lent.add(message.bytes.buffer as ArrayBuffer);
      const bytes = Buffer.from(message.bytes.buffer, message.bytes.byteOffset, message.bytes.byteLength);
      if (job.stream.push(bytes)) this.#worker.postMessage({ type: 'credit', id: message.id } satisfies PackToWorker);
      else job.owed++;
      return;
    }
    job.finished = true;
    this.#jobs.delete(message.id);
    if (this.#jobs.size === 0) this.#worker.unref();
    Object.assign(job.report, message.report);
    if (message.error !== undefined) {
      const err: NodeJS.ErrnoException = new Error(message.error);
      if (message.code !== undefined) err.code = message.code;
      job.start.reject(err);
      job.stream.destroy(err);
    } else {
      job.start.resolve();
      if (!message.aborted) job.stream.push(null);
    }
    job.release();
  }
}

let shared: PackWorker | undefined;

/**
 * The tar of the directory `dir` (see packDirectory in tar-pack-walk.ts for what goes in). The
 * caller keeps `dir` open until `released` settles (after the stream ended, failed or was
 * destroyed): the worker walks from its descriptor until then, and a descriptor closed early could
 * be reused for another directory. `report` is filled in once the pack is done. `maxHoleBytes`:
 * the holes of sparse files the pack may read through (hole-allowance.ts); past them it fails.
 */
export function packTar(
  ws: { ownUid: number },
  dir: FileHandle,
  report: PackReport,
  maxHoleBytes = DEFAULT_MAX_HOLE_BYTES,
): Packing & { recycle: (batch: Buffer) => void } {
  if (!shared) {
    const worker = new PackWorker(() => {
      if (shared === worker) shared = undefined;
    });
    shared = worker;
  }
  const worker = shared;
  return { ...worker.pack(dir.fd, ws.ownUid, maxHoleBytes, report), recycle: (batch) => worker.recycle(batch) };
}

// Reads inside large snapshots (one path, a listing, a file's chunks) sent to one long-lived worker thread that keeps the records it checked: the API's thread never parses a large record, and browsing a snapshot click by click pays for its record once.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { JobError } from './run-job.js';
import type { BrowseJob, BrowseResult } from './snapshot-browse.js';
import type { JobReply } from './snapshot-protocol.js';

/** To the reader's thread: one read. */
export interface ReaderRequest {
  id: number;
  job: BrowseJob;
}

/** From the reader's thread: the answer to request `id`, and whether it read the record from disk (not one it kept). */
export interface ReaderReply {
  id: number;
  reply: JobReply;
  recordRead: boolean;
}

/**
 * How long the thread waits for another read before it ends, freeing the records it keeps. A
 * person browsing clicks every few seconds; a box nobody browses holds no thread and no memory.
 */
const IDLE_MS = 30_000;

/**
 * Why one thread that stays, rather than one per read (as a fork's or a diff's work has): starting
 * a thread and loading its modules took about 20 ms of the 43 a listing took at 54,000 files, and
 * checking the 13 MB record's sha256 7 more, on every click. Reads are short, so one thread
 * answering them in turn is enough; a fork or a diff never waits behind them (threads of their own).
 */
export class SnapshotReader {
  #worker: Worker | undefined;
  #pending = new Map<number, { resolve: (r: BrowseResult) => void; reject: (e: Error) => void }>();
  #next = 1;
  #idle: NodeJS.Timeout | undefined;
  #recordsRead = 0;

  /** How many records the reader's threads have read from disk (and checked): a read answered from a kept record adds none. */
  get recordsRead(): number {
    return this.#recordsRead;
  }

  /** Answer `job` in the reader's thread (started now if it is not running). */
  browse(job: BrowseJob): Promise<BrowseResult> {
    const worker = this.#running();
    const id = this.#next++;
    clearTimeout(this.#idle);
    // Held while it has work, so a process waiting only for a read does not end first.
    worker.ref();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage({ id, job } satisfies ReaderRequest);
    });
  }

  /** End the thread now (its reads in progress fail); the next read starts a new one. */
  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#ended(worker, new Error('the snapshot reader was closed'));
    await worker.terminate();
  }

  #running(): Worker {
    if (this.#worker) return this.#worker;
    // Beside this module: .js when built, .ts when the tests run the sources (the worker inherits their loader).
    const worker = new Worker(new URL(`./snapshot-reader-worker${path.extname(import.meta.url)}`, import.meta.url));
    worker.on('message', ({ id, reply, recordRead }: ReaderReply) => {
      if (recordRead) this.#recordsRead++;
      this.#answered(worker, id, reply);
    });
    worker.on('error', (err) => this.#ended(worker, err));
    worker.on('exit', (code) => this.#ended(worker, new Error(`the snapshot reader's thread exited (code ${code}) without an answer`)));
    this.#worker = worker;
    return worker;
  }

  #answered(worker: Worker, id: number, reply: JobReply): void {
    const waiting = this.#pending.get(id);
    this.#pending.delete(id);
    if (reply.ok) waiting?.resolve(reply.result as BrowseResult);
    else waiting?.reject(new JobError(reply.message, reply.code));
    if (this.#pending.size === 0 && this.#worker === worker) {
      worker.unref();
      this.#idle = setTimeout(() => void this.close(), IDLE_MS).unref();
    }
  }

  /** The thread is gone (closed, crashed, or exited): every read still waiting fails with `err`. */
  #ended(worker: Worker, err: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    clearTimeout(this.#idle);
    const waiting = [...this.#pending.values()];
    this.#pending.clear();
    for (const w of waiting) w.reject(err);
  }
}

/** The process's one reader: every store's large snapshots are read through it (a job names its files). */
export const snapshotReader = new SnapshotReader();

// The capture threads of a snapshot store: a few, kept between captures so an agent's next capture finds its previous entries and the store's chunk hashes in memory; an idle one ends after a minute.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { JobError } from './run-job.js';
import type { CaptureJob, CaptureReply, CaptureRequest, CaptureResult } from './snapshot-protocol.js';

/** An idle thread (and what it keeps) is let go after this long. */
const IDLE_MS = 60_000;

/**
 * The heap a capture thread may use, by default. A workspace's entries are held in memory while
 * it is walked (and kept for its next capture): about 1.5 KiB a file, so 2 GiB is over a million
 * files. A capture that needs more ends its thread alone (ERR_WORKER_OUT_OF_MEMORY), never the box.
 */
export const CAPTURE_HEAP_MIB = 2048;

interface Waiting {
  job: CaptureJob;
  /** Whose working directory: its next capture is sent to the thread that keeps its entries, when that one is free. */
  agent: string;
  resolve: (result: CaptureResult) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  current?: Waiting & { id: number };
  /** Agents whose latest entries this thread keeps. */
  agents: Set<string>;
  idle?: NodeJS.Timeout;
}

/**
 * Captures run one at a time per thread, at most `max` threads at once (a capture is a busy
 * synchronous walk: more threads than cores only slow each other); the others wait their turn.
 * An idle thread is unref'd, so it never keeps the process alive.
 */
export class CaptureWorkers {
  readonly #threads = new Set<Thread>();
  readonly #queue: Waiting[] = [];
  #nextId = 1;
  #closed = false;

  constructor(
    /** The heap of each thread, in MiB (CAPTURE_HEAP_MIB). */
    private readonly heapMiB = CAPTURE_HEAP_MIB,
    private readonly max = Math.max(1, Math.min(4, availableParallelism())),
  ) {}

  run(job: CaptureJob, agent: string): Promise<CaptureResult> {
    if (this.#closed) return Promise.reject(new Error('the snapshot store is closed'));
    return new Promise((resolve, reject) => {
      this.#queue.push({ job, agent, resolve, reject });
      this.#dispatch();
    });
  }

  /** End every thread; captures still waiting fail, one running fails when its thread has exited. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const waiting of this.#queue.splice(0)) waiting.reject(new Error('the snapshot store is closed'));
    await Promise.all([...this.#threads].map((t) => t.worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      const idle = [...this.#threads].filter((t) => !t.current);
      let thread = idle.find((t) => t.agents.has(next.agent)) ?? idle[0];
      if (!thread) {
        if (this.#threads.size >= this.max) return;
        thread = this.#start();
      }
      this.#queue.shift();
      const id = this.#nextId++;
      thread.current = { ...next, id };
      clearTimeout(thread.idle);
      thread.worker.ref();
      thread.worker.postMessage({ id, job: next.job } satisfies CaptureRequest);
    }
  }

  #start(): Thread {
    // Beside this module: .js when built (and bundled), .ts when the tests run the sources.
    const worker = new Worker(new URL(`./capture-worker${path.extname(import.meta.url)}`, import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMiB },
    });
    const thread: Thread = { worker, agents: new Set() };
    this.#threads.add(thread);
    worker.on('message', ({ id, reply }: CaptureReply) => {
      const done = thread.current;
      if (!done || done.id !== id) return;
      thread.current = undefined;
      // Its entries are now here, and only here.
      for (const t of this.#threads) t.agents.delete(done.agent);
      if (reply.ok) thread.agents.add(done.agent);
      worker.unref();
      thread.idle = setTimeout(() => {
        // Out of the set first: no capture is sent to a thread on its way out.
        this.#threads.delete(thread);
        void worker.terminate();
      }, IDLE_MS).unref();
      if (reply.ok) done.resolve(reply.result as CaptureResult);
      else done.reject(new JobError(reply.message, reply.code));
      this.#dispatch();
    });
    let failure: Error | undefined;
    worker.on('error', (err) => (failure = err));
    worker.on('exit', (code) => {
      this.#threads.delete(thread);
      clearTimeout(thread.idle);
      thread.current?.reject(failure ?? new Error(`the snapshot worker exited (code ${code}) without an answer`));
      thread.current = undefined;
      if (!this.#closed) this.#dispatch();
    });
    return thread;
  }
}

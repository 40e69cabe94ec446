// One namespace's approximate index: an @ruvector/core HNSW database file, configured for measured recall.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { IndexReply, IndexRequest, IndexWorkerData } from './ruvector-protocol.js';

/**
 * The HNSW parameters. Measured at 100k × 384 on a Gaussian mixture (docs/developer/adapters.md):
 * `efSearch` 100 gives recall@10 0.92, 300 gives 0.99 at 1.5 ms per query. @ruvector/core 0.1.32
 * reads `efSearch` only here, at construction — the per-query `efSearch` of `search()` is ignored —
 * so the value is fixed for the life of the open database.
 *
 * `maxElements` is a sizing hint (inserts past it still succeed). Left unset, the engine reserves
 * about 30 GB of address space per index; under the kernel's default overcommit heuristic that
 * makes every later fork of the API fail with ENOMEM — agents could no longer be spawned. At
 * 100,000 each open index reserves about 0.35 GB.
 */
export const RUVECTOR_HNSW = Object.freeze({ m: 16, efConstruction: 200, efSearch: 300, maxElements: 100_000 });

/**
 * An HNSW index of unit vectors under one file, owned by a worker thread (ruvector-worker.ts) so
 * that opening it — the engine rebuilds the graph from the stored vectors — never blocks the API.
 * Searches return ids only; callers re-score the candidates exactly, because the engine keeps
 * deleted and replaced points in its graph (their ids can come back twice or after deletion) and
 * reports distances, not similarities.
 *
 * The worker holds the process open only while a call is outstanding, so an index nobody closed
 * cannot keep the process alive; close() ends the worker.
 */
export class RuvectorIndex {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  #seq = 0;
  #ended: Error | undefined;
  /** Resolves once the database is open (its graph rebuilt); rejects when it cannot be. */
  readonly ready: Promise<void>;

  constructor(
    readonly file: string,
    dimension: number,
  ) {
    const workerData: IndexWorkerData = { file, dimension, hnsw: { ...RUVECTOR_HNSW } };
    // Beside this module: .js when built, .ts when the tests run the sources (the worker inherits their loader).
    this.#worker = new Worker(new URL(`./ruvector-worker${path.extname(import.meta.url)}`, import.meta.url), { workerData });
    this.ready = new Promise<void>((resolve, reject) => this.#waiting.set(0, { resolve: () => resolve(), reject }));
    // A rejected open is reported by whoever awaits ready; this keeps it from counting as unhandled meanwhile.
    this.ready.catch(() => undefined);
    this.#worker.on('message', (reply: IndexReply) => this.#settle(reply));
    this.#worker.on('error', (err) => this.#end(err));
    this.#worker.on('exit', (code) => this.#end(new Error(`the index worker of ${file} exited (code ${code})`)));
  }

  /** The ids of `ids` the engine does not hold. */
  missing(ids: string[]): Promise<string[]> {
    return this.#call({ op: 'missing', ids }) as Promise<string[]>;
  }

  /**
   * Insert many in one engine transaction (one disk sync instead of one per vector). Vectors are
   * copied out first: a view into a larger buffer (VectorMatrix rows are) would otherwise carry the
   * whole buffer to the worker.
   */
  insertBatch(entries: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<string[]> {
    return this.#call({ op: 'insertBatch', entries: entries.map((e) => ({ id: e.id, vector: e.vector.slice() })) }) as Promise<string[]>;
  }

  delete(id: string): Promise<boolean> {
    return this.#call({ op: 'delete', id }) as Promise<boolean>;
  }

  /** Candidate ids nearest to the unit query, best first, possibly with repeats. */
  search(unitQuery: Float32Array, k: number): Promise<string[]> {
    return this.#call({ op: 'search', vector: unitQuery.slice(), k }) as Promise<string[]>;
  }

  /** End the worker; calls still outstanding reject. */
  async close(): Promise<void> {
    this.#end(new Error(`the index ${this.file} is closed`));
    await this.#worker.terminate();
  }

  #call(request: DistributiveOmit<IndexRequest, 'seq'>): Promise<unknown> {
    if (this.#ended) return Promise.reject(this.#ended);
    const seq = ++this.#seq;
    this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(seq, { resolve, reject });
      this.#worker.postMessage({ ...request, seq });
    });
  }

  #settle(reply: IndexReply): void {
    const waiter = this.#waiting.get(reply.seq);
    if (!waiter) return;
    this.#waiting.delete(reply.seq);
    if (reply.ok) waiter.resolve(reply.value);
    else waiter.reject(new Error(reply.error ?? 'the index call failed'));
    if (this.#waiting.size === 0) this.#worker.unref();
  }

  #end(err: Error): void {
    this.#ended ??= err;
    for (const waiter of this.#waiting.values()) waiter.reject(this.#ended);
    this.#waiting.clear();
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

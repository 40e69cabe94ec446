// One namespace of local memory: exact vectors in memory, the HNSW index on disk, and the recall guard between them.
import { randomInt } from 'node:crypto';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { normalized } from './memory-input.js';
import { RuvectorIndex } from './ruvector-index.js';
import { VectorMatrix, type ScoredId } from './vector-matrix.js';

/** Recall@10 the index must show on the namespace's own data before its answers are used. */
export const TARGET_RECALL = 0.95;

/** Below this many vectors a namespace is searched exactly (a scan is then as fast as the index). */
export const DEFAULT_EXACT_BELOW = 5_000;

/** Queries per calibration: enough to tell 0.90 from 0.95 reliably (320 neighbour checks). */
export const CALIBRATION_QUERIES = 32;

// Re-calibrate once the namespace has grown or shrunk by half since the last measurement.
const RECALIBRATE_FACTOR = 1.5;

// A calibration that failed is tried again after a back-off (5 s, doubling up to 10 min): right
// after a reopen the engine may still be rebuilding its graph and answer poorly for a while.
const RETRY_FIRST_MS = 5_000;
const RETRY_MAX_MS = 600_000;

/** How a namespace is answering, for logs, tests and the benchmark. */
export interface NamespaceStats {
  size: number;
  mode: 'exact' | 'index';
  /** Last measured recall@10 of the index, and at which size. */
  recall?: number;
  calibratedSize?: number;
  indexBroken: boolean;
}

/** Options of a namespace. */
export interface NamespaceOptions {
  dimension: number;
  exactBelow: number;
  logger: Logger;
}

/**
 * A namespace. Every search is either exact (a scan of the in-memory vectors: recall 1 by
 * construction) or answered by the index after a calibration on this namespace's data showed
 * recall@10 ≥ {@link TARGET_RECALL}; results are re-scored exactly and an index answer with fewer
 * hits than asked falls back to the scan, so recall never drops silently.
 */
export class MemoryNamespace {
  readonly matrix: VectorMatrix;
  #index: RuvectorIndex | undefined;
  #indexBroken = false;
  #calibration: { size: number; recall: number; at: number; retryMs: number } | undefined;
  #calibrating: Promise<void> | undefined;
  #writes: Promise<unknown> = Promise.resolve();
  /** Vectors stored but not yet in the index; searches scan them exactly alongside the index. */
  readonly #pending = new Map<string, Float32Array>();
  #flushing: Promise<void> | undefined;
  /** The open in progress (openIndex) and the ids stored or removed meanwhile. */
  #opening: Promise<void> | undefined;
  readonly #touched = new Set<string>();
  /** The worker from openIndex on, usable or not (a failed open still holds a thread): close ends it. */
  #worker: RuvectorIndex | undefined;
  #closing = false;

  constructor(
    readonly name: string,
    readonly indexFile: string,
    private readonly options: NamespaceOptions,
  ) {
    this.matrix = new VectorMatrix(options.dimension);
  }

  /**
   * Start opening the index file in its worker and return at once: the engine rebuilds the graph
   * of an existing file, which takes seconds per 10,000 vectors, and the namespace answers exactly
   * from memory until the index is ready. Once open, whatever the catalogue has that the index
   * lacks is inserted (a store interrupted between the two, or made while the index was opening),
   * and ids replaced or removed meanwhile are dropped from it first. Extra ids in the index are
   * harmless: hits are checked against the catalogue's vectors. A failure leaves the namespace
   * exact (logged as MemoryIndexFailed).
   */
  openIndex(): void {
    if (this.#worker || this.#closing) return;
    const index = new RuvectorIndex(this.indexFile, this.options.dimension);
    this.#worker = index;
    this.#opening = this.#catchUp(index)
      .then(() => {
        if (!this.#closing) this.#index = index;
      })
      .catch((err: unknown) => this.#breakIndex(err))
      .finally(() => (this.#opening = undefined));
  }

  async #catchUp(index: RuvectorIndex): Promise<void> {
    await index.ready;
    // A close during the open only needs the deletes below (deleting an absent id is harmless).
    const lacking = new Set(this.#closing ? [] : await index.missing(this.matrix.ids()));
    for (;;) {
      // Ids stored or removed since the index started opening: the index may hold an older vector.
      const touched = [...this.#touched];
      this.#touched.clear();
      for (const id of touched) {
        if (!lacking.has(id)) await index.delete(id);
        if (this.matrix.has(id)) lacking.add(id);
      }
      if (this.#touched.size > 0) continue;
      // Closing: the index now holds no stale vector, so the next open's missing() finds the rest.
      if (this.#closing) return;
      const batch: Array<{ id: string; vector: Float32Array }> = [];
      for (const id of lacking) {
        const vector = this.matrix.get(id);
        if (vector) batch.push({ id, vector });
        if (batch.length === 1000) break;
      }
      if (batch.length === 0) return;
      await index.insertBatch(batch);
      for (const { id } of batch) lacking.delete(id);
      // Ids removed from the catalogue before their turn need no insert.
      for (const id of lacking) if (!this.matrix.has(id)) lacking.delete(id);
    }
  }

  /**
   * End the index worker (the namespace is being dropped: the adapter closes or reconnects, and
   * has closed the catalogue, so no new write starts). No insert is started any more; the writes
   * under way, the open and the engine call in flight finish — terminating a worker waits for a
   * call inside the engine anyway — and ids stored or removed during the open are deleted from the
   * index. So the index file always exists and holds no stale vector, and the next open inserts
   * whatever it lacks. No deadline: one cut the open short on a loaded machine, leaving no file,
   * or ids replaced during the open with their old vectors, which no later open repairs.
   */
  async close(): Promise<void> {
    this.#closing = true;
    await this.#writes;
    await this.settledWrites();
    while (this.#calibrating) await this.#calibrating;
    const worker = this.#worker;
    this.#index = undefined;
    this.#worker = undefined;
    await worker?.close();
  }

  /** Run writes of this namespace one at a time, so the index sees them in catalogue order. */
  serialize<T>(write: () => Promise<T>): Promise<T> {
    const next = this.#writes.then(write, write);
    this.#writes = next.catch(() => undefined);
    return next;
  }

  /**
   * Add or replace a vector (already in the catalogue). It is searchable at once (exactly, from
   * memory); the index receives it in the next batch, because the engine syncs its file once per
   * call and one call per vector would cap stores at a few hundred per second.
   */
  async put(id: string, vector: Float32Array): Promise<void> {
    const unit = normalized(vector);
    const replacing = this.matrix.has(id) && !this.#pending.has(id);
    this.matrix.set(id, unit);
    if (!this.#index) {
      if (this.#opening) this.#touched.add(id);
      return;
    }
    if (replacing) await this.#indexCall(() => this.#index!.delete(id));
    this.#pending.set(id, unit);
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = undefined));
  }

  /** Remove a vector (already gone from the catalogue). */
  async remove(id: string): Promise<void> {
    this.matrix.delete(id);
    if (!this.#index) {
      if (this.#opening) this.#touched.add(id);
      return;
    }
    if (this.#pending.delete(id)) return;
    await this.#indexCall(() => this.#index!.delete(id));
  }

  /** Resolves once every stored vector is in the index. */
  async flushed(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  async #flush(): Promise<void> {
    while (this.#pending.size > 0 && !this.#indexBroken && !this.#closing) {
      const batch: Array<{ id: string; vector: Float32Array }> = [];
      for (const [id, vector] of this.#pending) {
        batch.push({ id, vector });
        if (batch.length === 1000) break;
      }
      await this.#indexCall(() => this.#index!.insertBatch(batch));
      // A vector replaced while its batch was written is written again by the next batch.
      for (const { id, vector } of batch) if (this.#pending.get(id) === vector) this.#pending.delete(id);
    }
    this.#calibrateIfStale();
  }

  async #indexCall(call: () => Promise<unknown>): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.#breakIndex(err);
    }
  }

  /** Which path the next search takes. */
  mode(): 'exact' | 'index' {
    if (!this.#index || this.#indexBroken || this.matrix.size < this.options.exactBelow) return 'exact';
    return this.#calibration && this.#calibration.recall >= TARGET_RECALL ? 'index' : 'exact';
  }

  /** The top-k of the unit query, best first, scores exact. */
  async search(unitQuery: Float32Array, k: number): Promise<ScoredId[]> {
    const want = Math.min(k, this.matrix.size);
    if (want === 0) return [];
    this.#calibrateIfStale();
    if (this.mode() === 'exact') return this.matrix.topK(unitQuery, want);
    const hits = await this.#fromIndex(unitQuery, want);
    return hits.length < want ? this.matrix.topK(unitQuery, want) : hits;
  }

  // The index's answer, re-scored exactly. Over-fetched: deleted and replaced points still occupy
  // places in the engine's answers, and an id can come back twice.
  async #fromIndex(unitQuery: Float32Array, want: number): Promise<ScoredId[]> {
    const candidates = await this.#index!.search(unitQuery, Math.min(this.matrix.size, want * 2 + 16));
    const seen = new Set<string>();
    const hits: ScoredId[] = [];
    for (const [id, unit] of this.#pending) {
      seen.add(id);
      hits.push({ id, score: dot(unitQuery, unit) });
    }
    for (const id of candidates) {
      if (seen.has(id)) continue;
      seen.add(id);
      const score = this.matrix.score(unitQuery, id);
      if (score !== undefined) hits.push({ id, score });
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, want);
  }

  /** Resolves once the index is open and holds every stored vector. */
  async settledWrites(): Promise<void> {
    while (this.#opening) await this.#opening;
    await this.flushed();
  }

  /** Resolves once the index is open and no calibration is running (tests and the benchmark wait on it). */
  async settled(): Promise<void> {
    await this.settledWrites();
    this.#calibrateIfStale();
    while (this.#calibrating) await this.#calibrating;
  }

  stats(): NamespaceStats {
    const stats: NamespaceStats = { size: this.matrix.size, mode: this.mode(), indexBroken: this.#indexBroken };
    if (this.#calibration) Object.assign(stats, { recall: this.#calibration.recall, calibratedSize: this.#calibration.size });
    return stats;
  }

  #calibrateIfStale(): void {
    const n = this.matrix.size;
    // Measured only on a fully indexed namespace: pending vectors are answered exactly and would flatter the figure.
    if (this.#calibrating || this.#closing || !this.#index || this.#indexBroken || this.#pending.size > 0 || n < this.options.exactBelow || n < 11) return;
    const last = this.#calibration;
    const sizeChanged = !last || n >= last.size * RECALIBRATE_FACTOR || n * RECALIBRATE_FACTOR <= last.size;
    const retryDue = last !== undefined && last.recall < TARGET_RECALL && Date.now() - last.at >= last.retryMs;
    if (!sizeChanged && !retryDue) return;
    this.#calibrating = this.#calibrate()
      .catch((err: unknown) => this.#breakIndex(err))
      .finally(() => (this.#calibrating = undefined));
  }

  /**
   * Measure recall@10 of the index against the exact scan on queries drawn from this namespace's
   * own vectors (each perturbed, so the query is near, not on, a stored point). Runs in the
   * background, yielding between queries; the namespace stays exact until a calibration passes.
   */
  async #calibrate(): Promise<void> {
    const size = this.matrix.size;
    let found = 0;
    for (let q = 0; q < CALIBRATION_QUERIES; q++) {
      await yieldToEventLoop();
      if (this.#closing) return;
      const base = this.matrix.get(this.matrix.idAt(randomInt(this.matrix.size))!)!;
      const query = normalized(base.map((x) => x + gaussian() * (0.2 / Math.sqrt(base.length))));
      const truth = new Set(this.matrix.topK(query, 10).map((h) => h.id));
      const answer = await this.#fromIndex(query, 10);
      found += answer.filter((h) => truth.has(h.id)).length / truth.size;
    }
    const recall = found / CALIBRATION_QUERIES;
    const passed = recall >= TARGET_RECALL;
    const previous = this.#calibration;
    const retryMs = passed ? RETRY_FIRST_MS : previous && previous.recall < TARGET_RECALL ? Math.min(previous.retryMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    this.#calibration = { size, recall, at: Date.now(), retryMs };
    this.options.logger[passed ? 'info' : 'warn'](
      { event: passed ? 'MemoryIndexCalibrated' : 'MemoryRecallBelowTarget', namespace: this.name, size, recall, target: TARGET_RECALL },
      passed
        ? `memory namespace ${this.name}: index recall@10 ${recall.toFixed(3)} at ${size} vectors`
        : `memory namespace ${this.name}: index recall@10 ${recall.toFixed(3)} is below ${TARGET_RECALL}; searching exactly`,
    );
  }

  #breakIndex(err: unknown): void {
    this.#indexBroken = true;
    this.options.logger.error(
      { event: 'MemoryIndexFailed', namespace: this.name, err },
      `memory namespace ${this.name}: index failed; searching exactly until the next connect`,
    );
  }
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

function gaussian(): number {
  return Math.sqrt(-2 * Math.log(1 - Math.random())) * Math.cos(2 * Math.PI * Math.random());
}

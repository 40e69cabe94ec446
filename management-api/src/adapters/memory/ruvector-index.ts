// One namespace's approximate index: an @ruvector/core HNSW database file, configured for measured recall.
import { createRequire } from 'node:module';
import type { VectorDb as VectorDbClass } from '@ruvector/core';

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

// Loaded on first use: the native module costs ~30 ms and only boxes using local memory pay it.
const require = createRequire(import.meta.url);
let loaded: typeof import('@ruvector/core') | undefined;
function ruvector(): typeof import('@ruvector/core') {
  loaded ??= require('@ruvector/core') as typeof import('@ruvector/core');
  return loaded;
}

/**
 * An HNSW index of unit vectors under one file. Searches return ids only; callers re-score the
 * candidates exactly, because the engine keeps deleted and replaced points in its graph (their ids
 * can come back twice or after deletion) and reports distances, not similarities.
 */
export class RuvectorIndex {
  readonly #db: VectorDbClass;

  /**
   * Open or create the database at `file`. Reopening rebuilds the graph from the stored vectors,
   * synchronously, in this thread — the cost of a restart grows with the namespace (see the docs).
   */
  constructor(readonly file: string, dimension: number) {
    // storagePath is always given: without it the engine writes ./ruvector.db into the working directory.
    this.#db = new (ruvector().VectorDb)({ dimensions: dimension, storagePath: file, distanceMetric: 'Cosine', hnswConfig: { ...RUVECTOR_HNSW } });
  }

  /** Number of live ids the engine maps. */
  len(): Promise<number> {
    return this.#db.len();
  }

  /** Whether the engine holds `id`. */
  async has(id: string): Promise<boolean> {
    return (await this.#db.get(id)) !== null;
  }

  insert(id: string, unit: Float32Array): Promise<string> {
    return this.#db.insert({ id, vector: unit });
  }

  /** Insert many in one engine transaction (one disk sync instead of one per vector). */
  insertBatch(entries: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<string[]> {
    return this.#db.insertBatch(entries.map((e) => ({ id: e.id, vector: e.vector })));
  }

  delete(id: string): Promise<boolean> {
    return this.#db.delete(id);
  }

  /** Candidate ids nearest to the unit query, best first, possibly with repeats. */
  async search(unitQuery: Float32Array, k: number): Promise<string[]> {
    const hits = await this.#db.search({ vector: unitQuery, k });
    return hits.map((h) => h.id);
  }
}

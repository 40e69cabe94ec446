// An in-memory matrix of unit vectors with exact (brute-force) cosine top-k: the recall baseline.

/** One exact neighbour: the row's id and its cosine similarity to the query. */
export interface ScoredId {
  id: string;
  score: number;
}

/**
 * Unit-length vectors in one contiguous Float32Array, addressed by id. Removal swaps the last row
 * into the hole, so the matrix stays dense and a scan touches only live rows.
 */
export class VectorMatrix {
  #data: Float32Array;
  #ids: string[] = [];
  readonly #rows = new Map<string, number>();

  constructor(
    readonly dimension: number,
    capacity = 1024,
  ) {
    this.#data = new Float32Array(dimension * Math.max(1, capacity));
  }

  /** Number of rows. */
  get size(): number {
    return this.#ids.length;
  }

  has(id: string): boolean {
    return this.#rows.has(id);
  }

  /** The unit vector stored for `id`. */
  get(id: string): Float32Array | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#data.subarray(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Every id, in row order (a copy). */
  ids(): string[] {
    return [...this.#ids];
  }

  /** The id of row `row` (for sampling). */
  idAt(row: number): string | undefined {
    return this.#ids[row];
  }

  /** Add or replace `id` with `unit` (already normalised by the caller). */
  set(id: string, unit: Float32Array): void {
    let row = this.#rows.get(id);
    if (row === undefined) {
      row = this.#ids.length;
      if ((row + 1) * this.dimension > this.#data.length) {
        const grown = new Float32Array(this.#data.length * 2);
        grown.set(this.#data);
        this.#data = grown;
      }
      this.#ids.push(id);
      this.#rows.set(id, row);
    }
    this.#data.set(unit, row * this.dimension);
  }

  /** Remove `id`; false when absent. */
  delete(id: string): boolean {
    const row = this.#rows.get(id);
    if (row === undefined) return false;
    const last = this.#ids.length - 1;
    if (row !== last) {
      const lastId = this.#ids[last]!;
      this.#data.copyWithin(row * this.dimension, last * this.dimension, (last + 1) * this.dimension);
      this.#ids[row] = lastId;
      this.#rows.set(lastId, row);
    }
    this.#ids.pop();
    this.#rows.delete(id);
    return true;
  }

  /** Cosine similarity of the unit query with the row of `id` (undefined when absent). */
  score(unitQuery: Float32Array, id: string): number | undefined {
    const row = this.#rows.get(id);
    return row === undefined ? undefined : this.#dot(unitQuery, row * this.dimension);
  }

  /** The exact top-k rows by cosine similarity to the unit query, best first. */
  topK(unitQuery: Float32Array, k: number): ScoredId[] {
    const n = this.#ids.length;
    const best: ScoredId[] = [];
    let floor = -Infinity;
    for (let row = 0; row < n; row++) {
      const score = this.#dot(unitQuery, row * this.dimension);
      if (best.length === k && score <= floor) continue;
      // Insertion into a short sorted list beats a heap for k ≤ 100.
      let i = best.length;
      while (i > 0 && best[i - 1]!.score < score) i--;
      best.splice(i, 0, { id: this.#ids[row]!, score });
      if (best.length > k) best.pop();
      if (best.length === k) floor = best[k - 1]!.score;
    }
    return best;
  }

  #dot(q: Float32Array, offset: number): number {
    const data = this.#data;
    const d = this.dimension;
    // Four accumulators let the JIT overlap the multiply-adds (about 2× over a single sum).
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let i = 0;
    for (; i + 3 < d; i += 4) {
      s0 += data[offset + i]! * q[i]!;
      s1 += data[offset + i + 1]! * q[i + 1]!;
      s2 += data[offset + i + 2]! * q[i + 2]!;
      s3 += data[offset + i + 3]! * q[i + 3]!;
    }
    for (; i < d; i++) s0 += data[offset + i]! * q[i]!;
    return s0 + s1 + s2 + s3;
  }
}

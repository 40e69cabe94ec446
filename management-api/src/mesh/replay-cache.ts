// The NIP-98 replay cache: each signed request event is accepted once while it is still fresh.

/**
 * Token signatures seen, each kept until its token could no longer pass the time window. Bounded: when
 * full of live entries it refuses new ones rather than forget one (forgetting would let a replay in).
 */
export class ReplayCache {
  readonly #expiry = new Map<string, number>();
  #nextSweep = 0;

  constructor(
    /** Most live entries held at once. */
    readonly capacity: number,
  ) {}

  /** Number of entries held (live or not yet swept). */
  get size(): number {
    return this.#expiry.size;
  }

  /**
   * Record `id` as used until `expiresAt` (seconds). Returns 'fresh' the first time, 'replayed'
   * for an id already recorded and still live, 'full' when capacity is reached by live entries.
   */
  admit(id: string, expiresAt: number, now: number): 'fresh' | 'replayed' | 'full' {
    const known = this.#expiry.get(id);
    if (known !== undefined && known >= now) return 'replayed';
    if (this.#expiry.size >= this.capacity || now >= this.#nextSweep) this.#sweep(now);
    if (this.#expiry.size >= this.capacity) return 'full';
    this.#expiry.set(id, expiresAt);
    return 'fresh';
  }

  #sweep(now: number): void {
    // At most once a second unless full: expired entries cost memory, not correctness.
    this.#nextSweep = now + 1;
    for (const [id, at] of this.#expiry) if (at < now) this.#expiry.delete(id);
  }
}

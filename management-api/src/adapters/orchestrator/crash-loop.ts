// Crash-loop detection: too many failed exits of one agent name within a window refuse further starts of it.

/** Defaults: 5 failures within 60 s. */
export const DEFAULT_CRASH_LOOP = { maxFailures: 5, windowMs: 60_000 } as const;

/** Counts failures per agent name in a sliding window. */
export class CrashLoopDetector {
  readonly #failures = new Map<string, number[]>();

  constructor(
    readonly maxFailures: number = DEFAULT_CRASH_LOOP.maxFailures,
    readonly windowMs: number = DEFAULT_CRASH_LOOP.windowMs,
    private readonly now: () => number = Date.now,
  ) {}

  /** Record a failed exit of `name`; true when `name` is now crash-looping. */
  recordFailure(name: string): boolean {
    const times = this.#recent(name);
    times.push(this.now());
    this.#failures.set(name, times);
    return times.length >= this.maxFailures;
  }

  /** A clean exit: the agent works again, its failure history is forgotten. */
  recordSuccess(name: string): void {
    this.#failures.delete(name);
  }

  /** When `name` is crash-looping, the time from which it may start again; otherwise undefined. */
  refusedUntil(name: string): Date | undefined {
    const times = this.#recent(name);
    if (times.length < this.maxFailures) return undefined;
    // The loop ends once the oldest failure that still makes up the count leaves the window.
    return new Date(times[times.length - this.maxFailures]! + this.windowMs);
  }

  #recent(name: string): number[] {
    const cutoff = this.now() - this.windowMs;
    const times = (this.#failures.get(name) ?? []).filter((t) => t > cutoff);
    if (times.length === 0) this.#failures.delete(name);
    return times;
  }
}

// Exponential backoff with jitter for background reconnects.

/** Delays that double from `initialMs` up to `maxMs`, each randomised by ±20 % so boxes do not reconnect in step. */
export class Backoff {
  #attempt = 0;
  constructor(
    readonly initialMs: number,
    readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.#attempt, 30));
    this.#attempt += 1;
    return Math.round(base * (0.8 + 0.4 * this.random()));
  }

  /** Start again from `initialMs` (after a success). */
  reset(): void {
    this.#attempt = 0;
  }
}

/** The operation did not finish within its deadline. */
export class DeadlineError extends Error {
  override name = 'DeadlineError';
  constructor(
    readonly label: string,
    readonly ms: number,
  ) {
    super(`${label} timed out after ${ms} ms`);
  }
}

/**
 * Run `fn` with an AbortSignal that fires after `ms` (or when `outer` aborts), and reject with
 * DeadlineError at the deadline even if `fn` ignores its signal. The timer never keeps the process alive.
 */
export async function withDeadline<T>(label: string, ms: number, fn: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new DeadlineError(label, ms);
      controller.abort(err);
      reject(err);
    }, ms);
    timer.unref();
  });
  try {
    return await Promise.race([fn(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }
}

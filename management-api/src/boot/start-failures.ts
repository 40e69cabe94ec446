// Counts a required programme's failed starts in a row, because supervisord's own count cannot be
// relied on: its startsecs check runs before it reaps exited children, so on a loaded machine a
// process that exited at once is declared RUNNING, the retry count starts over, and a programme that
// can never start is restarted for ever instead of becoming FATAL. A start fails when supervisord
// backs off (the process ended within startsecs) or when the process exits unexpectedly within
// STABLE_RUN_MS of being called RUNNING; GIVE_UP_AFTER such failures in a row count as FATAL.

/** A run shorter than this (from RUNNING to an unexpected exit) is a failed start, not a crash of a running programme. */
export const STABLE_RUN_MS = 5_000;

/**
 * Failed starts in a row that count as "cannot start". Above supervisord's own four attempts
 * (startretries = 3), so its FATAL comes first whenever its count holds.
 */
export const GIVE_UP_AFTER = 6;

/** Failed starts per programme, timed by the listener's clock. */
export class StartFailures {
  readonly #runningSince = new Map<string, number>();
  readonly #inARow = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** supervisord called the programme RUNNING. */
  running(name: string): void {
    this.#runningSince.set(name, this.now());
  }

  /** supervisord backed off: the process ended before startsecs. Returns the failures in a row. */
  backedOff(name: string): number {
    this.#runningSince.delete(name);
    return this.#add(name);
  }

  /** The process exited unexpectedly (a restart follows). Returns the failures in a row (0 after a stable run). */
  exited(name: string): number {
    const since = this.#runningSince.get(name);
    this.#runningSince.delete(name);
    if (since !== undefined && this.now() - since >= STABLE_RUN_MS) {
      this.#inARow.delete(name);
      return 0;
    }
    return this.#add(name);
  }

  /** Start counting again (the programme was given up on, or stopped by hand). */
  clear(name: string): void {
    this.#inARow.delete(name);
    this.#runningSince.delete(name);
  }

  #add(name: string): number {
    const n = (this.#inARow.get(name) ?? 0) + 1;
    this.#inARow.set(name, n);
    return n;
  }
}

/** The reason given for a programme that failed GIVE_UP_AFTER starts in a row. */
export function startLoopReason(name: string): string {
  return `${name} could not be started (its last ${GIVE_UP_AFTER} starts each ended within ${STABLE_RUN_MS / 1000} s)`;
}

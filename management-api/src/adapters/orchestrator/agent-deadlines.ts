// An agent's lifecycle deadlines: timeout_sec (since its start) and idle_timeout_sec (no output, and on a terminal no input either).
import type { DeadlineReason } from './orchestrator-adapter.js';

export type { DeadlineReason } from './orchestrator-adapter.js';

/** What the deadlines of one agent watch. */
export interface DeadlineWatch {
  timeoutSec?: number;
  idleTimeoutSec?: number;
  /** The agent's output log (its number of the last chunk grows with every write). */
  output: { readonly lastSeq: number };
  /** When the agent's terminal last took input (ms since the epoch), for a tty agent. */
  lastInputAt?: () => number;
}

/** The idle check runs this often at most (and at least four times per idle period), so an end comes at most this late. */
const MAX_CHECK_MS = 1_000;

/** The deadlines of every agent, each ended through `end` at most once. */
export class AgentDeadlines {
  readonly #timers = new Map<string, NodeJS.Timeout[]>();

  /** Start watching agent `id`; `end` is called once when a deadline passes (the manager terminates it). */
  follow(id: string, watch: DeadlineWatch, end: (reason: DeadlineReason) => void, now: () => number = Date.now): void {
    const timers: NodeJS.Timeout[] = [];
    let fired = false;
    const fire = (reason: DeadlineReason): void => {
      if (fired) return;
      fired = true;
      this.forget(id);
      end(reason);
    };
    if (watch.timeoutSec !== undefined) timers.push(setTimeout(() => fire('timeout'), watch.timeoutSec * 1000));
    if (watch.idleTimeoutSec !== undefined) {
      const idleMs = watch.idleTimeoutSec * 1000;
      // Activity is read, not pushed: a busy agent costs nothing per chunk, only one check per period.
      let seq = watch.output.lastSeq;
      let active = now();
      timers.push(
        setInterval(
          () => {
            const t = now();
            const input = watch.lastInputAt?.() ?? 0;
            if (watch.output.lastSeq !== seq || input > active) {
              seq = watch.output.lastSeq;
              active = t;
              return;
            }
            if (t - active >= idleMs) fire('idle');
          },
          Math.min(MAX_CHECK_MS, Math.max(50, idleMs / 4)),
        ),
      );
    }
    for (const timer of timers) timer.unref();
    if (timers.length) this.#timers.set(id, timers);
  }

  /** The agent ended (or was forgotten): its deadlines no longer apply. */
  forget(id: string): void {
    for (const timer of this.#timers.get(id) ?? []) clearTimeout(timer);
    this.#timers.delete(id);
  }
}

// The agents' disk figures: one pass walks every agent's directories in turn, never two passes at once.
import { walkDisk, type DiskWalkOptions } from './disk-walk.js';

/** An agent's disk use as of its last walk. */
export interface DiskFigure {
  /** Bytes allocated under its directories (hard links once; stopped early once above its budget). */
  bytes: number;
  /** Entries below its directories (the directories themselves not counted, as its entry budget does not); a lower bound when the walk stopped early. */
  entries: number;
  /** Set when the tree could not be measured whole (see walkDisk): counted as over budget. */
  unmeasurable?: string;
  /** Set when what stopped the walk is the entry budget (limits.entries): the agent holds more entries than it may. */
  overEntries?: true;
  /** Wall time of the walk, seconds. */
  seconds: number;
  /** When the walk began (ms since the epoch): what was written after it may be missing from `bytes`. */
  startedAtMs: number;
}

/** One agent to measure. */
export interface DiskTarget {
  id: string;
  directories: readonly string[];
  /** Its disk budget in bytes: the walk stops once above it. */
  budget?: number;
  /** Its entry budget (limits.entries): a tree with more is not measured. */
  maxEntries?: number;
}

/**
 * A pass is not started again until this many times its own length has passed since it ended, so
 * walks take at most a fifth of the time however large the trees they walk (a million entries is
 * several seconds of CPU); with small trees the pass is short and the timer's interval rules.
 */
export const WALK_PACE = 4;

/**
 * Walks agents' directories one agent after another (each walk bounded and yielding, disk-walk.ts),
 * so a pass is at most one walk's load on the thread pool at any time.
 */
export class DiskSampler {
  #inFlight: Promise<void> | undefined;
  /** When the last pass ended and how long it took (ms), for {@link DiskSampler.due}. */
  #last = { endedAtMs: 0, tookMs: 0 };

  constructor(private readonly walk: Omit<DiskWalkOptions, 'stopAboveBytes'> = {}) {}

  /** Whether a timer's pass may start now: none under way, and the last one's pace kept ({@link WALK_PACE}). */
  due(nowMs = Date.now()): boolean {
    return this.#inFlight === undefined && nowMs >= this.#last.endedAtMs + WALK_PACE * this.#last.tookMs;
  }

  /** Measure `targets`, reporting each figure as it comes; joins the pass under way if there is one. */
  run(targets: readonly DiskTarget[], report: (id: string, figure: DiskFigure) => void): Promise<void> {
    if (this.#inFlight) return this.#inFlight;
    const startedAtMs = Date.now();
    this.#inFlight = this.#pass(targets, report).finally(() => {
      this.#inFlight = undefined;
      const endedAtMs = Date.now();
      this.#last = { endedAtMs, tookMs: endedAtMs - startedAtMs };
    });
    return this.#inFlight;
  }

  async #pass(targets: readonly DiskTarget[], report: (id: string, figure: DiskFigure) => void): Promise<void> {
    for (const target of targets) {
      const startedAtMs = Date.now();
      const started = process.hrtime.bigint();
      const found = await walkDisk(target.directories, {
        ...this.walk,
        ...(target.budget !== undefined ? { stopAboveBytes: target.budget } : {}),
        ...(target.maxEntries !== undefined ? { maxEntries: target.maxEntries } : {}),
      });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      report(target.id, {
        bytes: found.bytes,
        entries: found.entries - found.rootEntries,
        seconds,
        startedAtMs,
        ...(found.unmeasurable ? { unmeasurable: found.unmeasurable } : {}),
        ...(found.overEntries ? { overEntries: true } : {}),
      });
    }
  }
}

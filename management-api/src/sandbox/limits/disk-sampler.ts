// The agents' disk figures: one pass walks every agent's directories in turn, never two passes at once.
import { walkDisk, type DiskWalkOptions } from './disk-walk.js';

/** An agent's disk use as of its last walk. */
export interface DiskFigure {
  /** Bytes allocated under its directories (hard links once; stopped early once above its budget). */
  bytes: number;
  entries: number;
  /** Set when the tree could not be measured whole (see walkDisk): counted as over budget. */
  unmeasurable?: string;
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
}

/**
 * Walks agents' directories one agent after another (each walk bounded and yielding, disk-walk.ts),
 * so a pass is at most one walk's load on the thread pool at any time.
 */
export class DiskSampler {
  #inFlight: Promise<void> | undefined;

  constructor(private readonly walk: Omit<DiskWalkOptions, 'stopAboveBytes'> = {}) {}

  /** Whether a pass is under way. */
  get running(): boolean {
    return this.#inFlight !== undefined;
  }

  /** Measure `targets`, reporting each figure as it comes; joins the pass under way if there is one. */
  run(targets: readonly DiskTarget[], report: (id: string, figure: DiskFigure) => void): Promise<void> {
    this.#inFlight ??= this.#pass(targets, report).finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #pass(targets: readonly DiskTarget[], report: (id: string, figure: DiskFigure) => void): Promise<void> {
    for (const target of targets) {
      const startedAtMs = Date.now();
      const started = process.hrtime.bigint();
      const found = await walkDisk(target.directories, { ...this.walk, ...(target.budget !== undefined ? { stopAboveBytes: target.budget } : {}) });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      report(target.id, {
        bytes: found.bytes,
        entries: found.entries,
        seconds,
        startedAtMs,
        ...(found.unmeasurable ? { unmeasurable: found.unmeasurable } : {}),
      });
    }
  }
}

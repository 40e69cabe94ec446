// Checks that the required mounts are writable — at start and on a timer, never per request.
import { open, unlink } from 'node:fs/promises';
import path from 'node:path';

/** One required directory and whether a write into it succeeded. */
export interface MountState {
  name: string;
  path: string;
  writable: boolean;
  /** Why not (the errno code), when not writable. */
  error?: string;
}

/**
 * Writes and removes a probe file in each directory. A real write catches what a permission
 * check misses: read-only filesystems, full disks, missing directories.
 */
export class MountChecker {
  #states: MountState[];
  #timer: NodeJS.Timeout | undefined;
  #running = false;

  constructor(
    private readonly mounts: ReadonlyArray<{ name: string; path: string }>,
    private readonly options: { intervalMs: number; onChange: (states: MountState[]) => void },
  ) {
    this.#states = mounts.map((m) => ({ ...m, writable: false, error: 'not checked yet' }));
  }

  /** The states found by the last check. */
  get states(): readonly MountState[] {
    return this.#states;
  }

  /** Check now and then every `intervalMs`. */
  async start(): Promise<void> {
    await this.check();
    this.#timer = setInterval(() => void this.check(), this.options.intervalMs);
    this.#timer.unref();
  }

  /** Stop the timer. */
  close(): void {
    clearInterval(this.#timer);
  }

  /** Check every mount once; reports only when something changed. */
  async check(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    try {
      const states = await Promise.all(this.mounts.map((m) => probe(m)));
      const changed = states.some((s, i) => s.writable !== this.#states[i]?.writable || s.error !== this.#states[i]?.error);
      this.#states = states;
      if (changed) this.options.onChange(states);
    } finally {
      this.#running = false;
    }
  }
}

async function probe(mount: { name: string; path: string }): Promise<MountState> {
  const file = path.join(mount.path, `.agentbox-write-probe-${process.pid}`);
  try {
    const handle = await open(file, 'w', 0o600);
    try {
      await handle.writeFile('probe');
    } finally {
      await handle.close();
    }
    await unlink(file);
    return { ...mount, writable: true };
  } catch (err) {
    return { ...mount, writable: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

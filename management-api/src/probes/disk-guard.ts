// Watches free space on the state volume and the workspace: below resources.min_free_disk the box is UNREADY and refuses new agents, until space returns.
import { statfs } from 'node:fs/promises';
import { ApiError } from '../errors.js';

/** Free space of one watched directory as of the last check. */
export interface DiskState {
  name: string;
  path: string;
  /** Bytes an unprivileged process may still allocate there (statfs bavail × bsize). */
  freeBytes: number;
  thresholdBytes: number;
  low: boolean;
  /** Why statfs failed (the errno code); the mount checker reports such a directory, this guard does not. */
  error?: string;
}

/** How the guard is set up. */
export interface DiskGuardOptions {
  /** resources.min_free_disk in bytes. */
  thresholdBytes: number;
  intervalMs: number;
  /** Called when a directory goes low or recovers (or its error changes), not on every byte. */
  onChange: (states: readonly DiskState[]) => void;
}

/**
 * Refusing new agents is what keeps room for the box's own writes: the running agents are held by
 * their disk budgets, nothing new starts to write, and the threshold is the space left for beads,
 * events and the audit log. One statfs per directory per check: cheap enough for every spawn too.
 */
export class DiskGuard {
  #states: DiskState[];
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(
    private readonly watched: ReadonlyArray<{ name: string; path: string }>,
    private readonly options: DiskGuardOptions,
  ) {
    this.#states = watched.map((w) => ({ ...w, freeBytes: 0, thresholdBytes: options.thresholdBytes, low: false, error: 'not checked yet' }));
  }

  /** The states of the last check. */
  get states(): readonly DiskState[] {
    return this.#states;
  }

  /** Check now and then every `intervalMs` (the timer does not keep the process alive). */
  async start(): Promise<void> {
    await this.check();
    this.#timer = setInterval(() => void this.check(), this.options.intervalMs).unref();
  }

  /** Stop the timer. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** statfs every directory once; reports only when a state flips. A check under way is joined. */
  check(): Promise<void> {
    this.#running ??= this.#check().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /**
   * Refuse a new agent (or what `refused` says: a write, a snapshot) while a watched directory is
   * low: checked afresh, so a request never waits for the timer to see the disk fill (or free up).
   * Throws ABX_ERR_DISK_LOW naming the directory.
   */
  async admit(refused = 'no new agent starts'): Promise<void> {
    await this.check();
    const low = this.#states.find((s) => s.low);
    if (low)
      throw new ApiError('ABX_ERR_DISK_LOW', `${refused} while ${describeLow(low)}; free space there (agents' files in the workspace, for example) and retry`);
  }

  /**
   * Bytes the volume of watched directory `name` may still take before it is low: its free space
   * now (a fresh statfs) above the threshold, 0 below it. Unbounded when statfs fails there (the
   * mount checker reports that; a write there fails on its own).
   */
  async headroom(name: string): Promise<number> {
    const watched = this.watched.find((w) => w.name === name);
    if (!watched) throw new Error(`the disk guard watches no directory named ${name}`);
    return roomOf(await this.#probe(watched));
  }

  /** {@link headroom} as of the last check (one {@link admit} has just made), without another statfs. */
  lastHeadroom(name: string): number {
    const state = this.#states.find((s) => s.name === name);
    if (!state) throw new Error(`the disk guard watches no directory named ${name}`);
    return roomOf(state);
  }

  async #check(): Promise<void> {
    const states = await Promise.all(this.watched.map((w) => this.#probe(w)));
    const changed = states.some((s, i) => s.low !== this.#states[i]?.low || s.error !== this.#states[i]?.error);
    this.#states = states;
    if (changed) this.options.onChange(states);
  }

  async #probe(watched: { name: string; path: string }): Promise<DiskState> {
    const thresholdBytes = this.options.thresholdBytes;
    try {
      const fs = await statfs(watched.path);
      const freeBytes = fs.bavail * fs.bsize;
      return { ...watched, freeBytes, thresholdBytes, low: freeBytes < thresholdBytes };
    } catch (err) {
      return { ...watched, freeBytes: 0, thresholdBytes, low: false, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
    }
  }
}

/** What a volume may still take above the threshold; unbounded where statfs failed (the mount checker reports that). */
function roomOf(state: DiskState): number {
  return state.error ? Number.POSITIVE_INFINITY : Math.max(0, state.freeBytes - state.thresholdBytes);
}

/** "free space on /var/lib/agentbox is 3 MiB (3145728 bytes), below resources.min_free_disk 4 MiB (4194304 bytes)". */
export function describeLow(state: DiskState): string {
  return `free space on ${state.path} is ${mib(state.freeBytes)} (${state.freeBytes} bytes), below resources.min_free_disk ${mib(state.thresholdBytes)} (${state.thresholdBytes} bytes)`;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
}

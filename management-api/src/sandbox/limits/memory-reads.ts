// The memory of agents' processes for one sample: smaps_rollup on the thread pool, waited for a bounded time, the rest estimated from stat lines.
import { procKey, type ProcKey } from './agent-tree.js';
import { readProcFileAsync } from './proc-read-async.js';
import { memoryFromRollup, pageSize, type ProcMemory, type ProcStat } from './proc-stat.js';

/**
 * smaps_rollup reads in flight at once. The file walks every mapping of the process under its
 * memory lock: slow for a large process, and delayed for as long as the process itself holds
 * that lock for writing (an agent that maps and unmaps in a loop). Off the event loop they cannot
 * stall the API; two at a time leave the rest of the thread pool (4 threads) to everything else.
 */
export const MEMORY_CONCURRENCY = 2;

/**
 * How long a sample waits for its smaps_rollup reads. A read can wait on the process's memory
 * lock, which the process itself may hold, or behind other work on the thread pool: were the
 * sample to wait for it, no budget of any agent would be enforced until it answered. So past this
 * the processes not yet read are estimated from their stat lines (read without that lock), and
 * the sample ends.
 */
export const MEMORY_READ_WAIT_MS = 250;

/** What one pass of {@link MemoryReader.read} found. */
export interface MemoryReading {
  /** RSS and PSS of each process asked for, in the same order. */
  memories: ProcMemory[];
  /** How many of them are estimates: their read had not answered in time, or was still under way from an earlier sample. */
  estimated: number;
}

/**
 * Reads the memory of processes, sample after sample. A process whose read has not answered is
 * not read again until it does (a stuck read holds one thread of the pool, never more), and its
 * figures meanwhile are estimated: the PSS of its last complete read plus all that its resident
 * set grew since (growth is counted whole, as if unshared), or its resident set where it was never
 * read. An estimate is never below what the process could have: an agent gains nothing by keeping
 * its reads waiting.
 */
export class MemoryReader {
  /** Reads started and not yet answered, by process: the next sample waits for none of them. */
  readonly #pending = new Set<ProcKey>();
  /** The last complete reading of each process seen at the last sample (a late answer lands here too). */
  #last = new Map<ProcKey, ProcMemory>();

  constructor(
    private readonly procRoot = '/proc',
    private readonly waitMs = MEMORY_READ_WAIT_MS,
  ) {}

  /** Reads not yet answered, from this sample or earlier ones. */
  get pending(): number {
    return this.#pending.size;
  }

  /** RSS and PSS of each of `stats` (same order): read MEMORY_CONCURRENCY at a time for at most the wait, the rest estimated. */
  async read(stats: readonly ProcStat[]): Promise<MemoryReading> {
    const keys = stats.map((s) => procKey(s));
    // Only the processes of this sample are remembered: the map cannot grow with processes gone.
    const last = new Map<ProcKey, ProcMemory>();
    for (const key of keys) {
      const known = this.#last.get(key);
      if (known) last.set(key, known);
    }
    this.#last = last;
    const answered = new Array<ProcMemory | undefined>(stats.length);
    let next = 0;
    let waiting = true;
    const worker = async (): Promise<void> => {
      const buffer = Buffer.allocUnsafe(4096);
      while (waiting && next < stats.length) {
        const i = next++;
        const stat = stats[i]!;
        const key = keys[i]!;
        if (stat.state === 'Z') answered[i] = { rss: 0, pss: 0 };
        else if (!this.#pending.has(key)) answered[i] = await this.#readOne(stat, key, buffer);
      }
    };
    const workers = Promise.all(Array.from({ length: Math.min(MEMORY_CONCURRENCY, stats.length) }, worker));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.waitMs)));
    await Promise.race([workers, deadline]);
    clearTimeout(timer);
    // Past the wait no read is started: those under way go on and land in #last when they answer.
    waiting = false;
    let estimated = 0;
    const memories = stats.map((stat, i) => {
      const got = answered[i];
      if (got) return got;
      estimated++;
      return this.#estimate(stat, keys[i]!);
    });
    return { memories, estimated };
  }

  async #readOne(stat: ProcStat, key: ProcKey, buffer: Buffer): Promise<ProcMemory> {
    this.#pending.add(key);
    try {
      // Unreadable (gone, another user's): its resident set, as readMemory gives, and not remembered as a reading.
      const { memory, read } = memoryFromRollup(stat, await readProcFileAsync(`${this.procRoot}/${stat.pid}/smaps_rollup`, buffer));
      if (read) this.#last.set(key, memory);
      return memory;
    } finally {
      this.#pending.delete(key);
    }
  }

  #estimate(stat: ProcStat, key: ProcKey): ProcMemory {
    const rss = stat.rssPages * pageSize();
    const known = this.#last.get(key);
    return { rss, pss: known ? known.pss + Math.max(0, rss - known.rss) : rss };
  }
}

// Reads of /proc that never hold the event loop for long: stat lines in short synchronous slices, small files on the thread pool.
import { closeSync, open, read } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { readChildren } from './proc-children.js';
import { parseStat, readProcFile, type ProcStat } from './proc-stat.js';

/**
 * Stat lines read per slice before the event loop gets a turn. A stat line is served from the
 * kernel's task structures without taking the process's memory lock, in ~10 µs: a slice of 16
 * holds the loop well under a millisecond, and costs a quarter of what a thread-pool read does
 * (open, read and close would be three round trips to the pool per file).
 */
export const STAT_SLICE = 16;

/** Every pid in `procRoot` now (processes, not threads), listed on the thread pool. */
export async function listPidsAsync(procRoot = '/proc'): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir(procRoot)) {
    const code = name.charCodeAt(0);
    if (code >= 48 && code <= 57) pids.push(Number(name));
  }
  return pids;
}

/** Counts reads and gives the event loop a turn each time STAT_SLICE of them are done (nothing to await in between). */
function sliceTurns(): (reads: number) => Promise<void> | undefined {
  let done = 0;
  return (reads) => {
    done += reads;
    if (done < STAT_SLICE) return undefined;
    done = 0;
    return new Promise<void>((resolve) => setImmediate(resolve));
  };
}

/** The stats of `pids` (those gone are left out), STAT_SLICE at a time with a turn of the event loop between slices. */
export async function readStatsSliced(pids: readonly number[], procRoot = '/proc'): Promise<ProcStat[]> {
  const stats: ProcStat[] = [];
  const turn = sliceTurns();
  for (const pid of pids) {
    const line = readProcFile(`${procRoot}/${pid}/stat`);
    const s = line === undefined ? undefined : parseStat(pid, line);
    if (s) stats.push(s);
    await turn(1);
  }
  return stats;
}

/**
 * The stats of the processes of the trees rooted at `roots` (each root and all its descendants,
 * found through the children lists), STAT_SLICE reads at a time with a turn of the event loop
 * between slices. What it costs grows with the agents' processes, not with the machine's: the
 * sampler walks this way when every agent's processes descend from the process it spawned.
 * A process that forks between the read of its children and the next sample is found then.
 */
export async function readSubtreesSliced(roots: readonly number[], procRoot = '/proc'): Promise<ProcStat[]> {
  const stats: ProcStat[] = [];
  const seen = new Set<number>();
  const queue = [...roots];
  const turn = sliceTurns();
  for (let i = 0; i < queue.length; i++) {
    const pid = queue[i]!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    const line = readProcFile(`${procRoot}/${pid}/stat`);
    const s = line === undefined ? undefined : parseStat(pid, line);
    if (s) {
      stats.push(s);
      for (const child of readChildren(pid, s.threads, procRoot)) queue.push(child);
    }
    // The stat line and the children lists: about two reads' worth.
    await turn(2);
  }
  return stats;
}

/** A small procfs file read on the thread pool into `buffer`; undefined when the process is gone or out of reach. */
export function readProcFileAsync(path: string, buffer: Buffer): Promise<string | undefined> {
  return new Promise((resolve) => {
    open(path, 'r', (err, fd) => {
      if (err) return resolve(undefined);
      // From the file's position (0 when just opened), not pread at 0: the same for procfs.
      read(fd, buffer, 0, buffer.length, null, (readErr, bytes) => {
        // Closing a procfs file releases kernel memory and never waits: no pool round trip for it.
        closeSync(fd);
        resolve(readErr ? undefined : buffer.toString('latin1', 0, bytes));
      });
    });
  });
}

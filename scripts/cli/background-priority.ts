// Background priority for a whole process, every thread of it: nice 10 for the CPU and the idle I/O class for the disk, so work beside a serving box (a backup) takes only what the box leaves.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';

/** The niceness background work runs at. */
export const BACKGROUND_NICENESS = 10;

/** What could be lowered: the CPU priority, the I/O class (false where ionice is missing or refused). */
export type BackgroundPriority = { cpu: boolean; io: boolean };

/**
 * Lower this process to background priority, every thread of it.
 *
 * Why every thread: Linux keeps a niceness and an I/O priority per thread, and setpriority() or
 * ioprio_set() on the process's id changes its first thread only. Node does its file reads, writes
 * and flushes on libuv's pool of threads, which already run (a backup has read files before it
 * starts), so lowering the first thread alone left every copy and fsync at the box's priority.
 * Threads made later (more of the pool, worker threads) take their maker's priorities.
 *
 * Why the idle I/O class: the box's event appends each wait for an fsync, and the backup's flushed
 * steps queue on the same disk. With mq-deadline (or BFQ) an idle-class request waits while the
 * box's are queued, and is served anyway after the scheduler's aging limit (seconds), so the copy
 * is slowed, never stopped. A scheduler without classes (`none`) ignores it. Nice does not reach
 * the disk here: it maps to a level inside the best-effort class, which mq-deadline does not use.
 *
 * A priority already lower is kept. Raising either back is not allowed to an unprivileged process,
 * so this is for the rest of the command.
 */
export function runAsBackground(): BackgroundPriority {
  const threads = threadIds();
  return { cpu: lowerCpu(threads), io: lowerIo(threads) };
}

/** The ids of this process's threads (the process's own id alone where /proc has no task list). */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [process.pid];
  }
}

function lowerCpu(threads: number[]): boolean {
  let lowered = true;
  for (const tid of threads) {
    try {
      if (os.getPriority(tid) < BACKGROUND_NICENESS) os.setPriority(tid, BACKGROUND_NICENESS);
    } catch {
      // A thread that just ended, or a platform without priorities: the rest are still lowered.
      lowered = false;
    }
  }
  return lowered;
}

/**
 * util-linux's ionice sets the class thread by thread (IOPRIO_WHO_PROCESS takes a thread id); Node
 * has no call for it. ionice stops at the first id it cannot set, and a thread may end between the
 * listing and the call (Node starts and ends a few of its own), so a failed call is made again one
 * thread at a time.
 */
function lowerIo(threads: number[]): boolean {
  if (ionice(threads)) return true;
  let lowered = false;
  for (const tid of threadIds()) lowered = ionice([tid]) || lowered;
  return lowered;
}

function ionice(threads: number[]): boolean {
  try {
    execFileSync('ionice', ['-c', '3', '-p', ...threads.map(String)], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    // No ionice (util-linux) on this machine, a kernel that refuses, or a thread that ended.
    return false;
  }
}

// A supervised programme never outlives its supervisor: it watches its parent and stops itself
// when supervisord is gone (kill -9 leaves it with parent 1, still holding its ports and, for the
// API, still heartbeating to the mesh host). Under an attached `agentbox up` it also watches that
// process (AGENTBOX_OWNER_PID): supervisord gets SIGTERM when up dies (its parent-death signal),
// but Python retries its poll after a signal, so it acts on it only at its next wake-up, up to a
// second later and again at each step of its ordered stop; the box's own programmes stop at once.
//
// Why a poll: Node has no prctl(PR_SET_PDEATHSIG) binding, and supervisord passes its children no
// descriptor whose end-of-file would tell them; the bin scripts exec node, so the parent is
// supervisord itself and a changed ppid means it died. A changed ppid alone misses a supervisord
// that died while the programme was still starting (its parent is init before it first looks), so
// supervisord is also watched by the pid the entrypoint exports (AGENTBOX_SUPERVISORD_PID), as the
// owner is. One getppid() and a read of /proc per process every 250 ms is nothing next to the 2 s
// the box is given to be gone.
import { readFileSync } from 'node:fs';
import { startedBySupervisord } from './supervised.js';

/** How often the parent is checked. */
export const PARENT_CHECK_MS = 250;
/** How long the programme's own SIGTERM handling may take before it is ended regardless. */
export const PARENT_GONE_DEADLINE_MS = 1_000;

/** Options of {@link watchParent}. */
export interface ParentWatchOptions {
  env?: Readonly<Record<string, string | undefined>>;
  /** Told once, when the parent (or the owning `agentbox up`) is gone, before the programme's SIGTERM handling runs. */
  onGone?: (parent: number) => void;
  intervalMs?: number;
}

/**
 * When supervisord started this process (programme/supervised.ts), SIGTERM this process
 * as supervisord would once the parent changes, and exit 1 if that has not ended it within
 * {@link PARENT_GONE_DEADLINE_MS}. Elsewhere (tests, `agentbox api`) does nothing. Returns a stop
 * function. The timer is unref'ed: it never keeps a finished programme alive.
 */
export function watchParent(options: ParentWatchOptions = {}): () => void {
  const env = options.env ?? process.env;
  if (!startedBySupervisord(env)) return () => {};
  const parent = process.ppid;
  // Named by pid as well: a supervisord (or an owner) that ended while this process was still
  // starting left it a parent that looks like its own; by its pid it is seen gone at the first check.
  const watched = [processNamed(env, SUPERVISORD_PID_VARIABLE), processNamed(env, 'AGENTBOX_OWNER_PID')].filter((p) => p !== undefined);
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : watched.find((p) => startTimeOf(p.pid) !== p.startTime)?.pid;
    if (gone === undefined) return;
    clearInterval(timer);
    options.onGone?.(gone);
    setTimeout(() => process.exit(1), PARENT_GONE_DEADLINE_MS).unref();
    process.kill(process.pid, 'SIGTERM');
  }, options.intervalMs ?? PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** supervisord's pid, which the entrypoint exports before it execs supervisord (its pid is the shell's). */
const SUPERVISORD_PID_VARIABLE = 'AGENTBOX_SUPERVISORD_PID';

/**
 * The process whose pid `variable` holds (supervisord: AGENTBOX_SUPERVISORD_PID; the `agentbox up`
 * that owns the box: AGENTBOX_OWNER_PID, set when it runs attached) and its start time, which tells
 * it from a later process given the same pid; a start time of '' when it is already gone (so it
 * counts as gone at once). Undefined when the variable names none.
 */
function processNamed(env: Readonly<Record<string, string | undefined>>, variable: string): { pid: number; startTime: string } | undefined {
  const pid = Number(env[variable]);
  if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
  return { pid, startTime: startTimeOf(pid) ?? '' };
}

/** Field 22 of /proc/<pid>/stat (start time), or undefined when the process is gone or a zombie. */
export function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

// A supervised programme never outlives its supervisor: it watches its parent and stops itself
// when supervisord is gone (kill -9 leaves it with parent 1, still holding its ports and, for the
// API, still heartbeating to the mesh host). Under an attached `agentbox up` it also watches that
// process (AGENTBOX_OWNER_PID): supervisord gets SIGTERM when up dies (its parent-death signal),
// but Python retries its poll after a signal, so it acts on it only at its next wake-up, up to a
// second later and again at each step of its ordered stop; the box's own programmes stop at once.
//
// Why a poll: Node has no prctl(PR_SET_PDEATHSIG) binding, and supervisord passes its children no
// descriptor whose end-of-file would tell them; the bin scripts exec node, so the parent is
// supervisord itself and a changed ppid means it died. One getppid() and one read of /proc every
// 250 ms is nothing next to the 2 s the box is given to be gone.
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
  const owner = ownerOf(env);
  const timer = setInterval(() => {
    const gone = process.ppid !== parent ? parent : owner && startTimeOf(owner.pid) !== owner.startTime ? owner.pid : undefined;
    if (gone === undefined) return;
    clearInterval(timer);
    options.onGone?.(gone);
    setTimeout(() => process.exit(1), PARENT_GONE_DEADLINE_MS).unref();
    process.kill(process.pid, 'SIGTERM');
  }, options.intervalMs ?? PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * The `agentbox up` that owns the box (AGENTBOX_OWNER_PID, set when it runs attached) and its
 * start time, which tells it from a later process given the same pid.
 */
function ownerOf(env: Readonly<Record<string, string | undefined>>): { pid: number; startTime: string } | undefined {
  const pid = Number(env['AGENTBOX_OWNER_PID']);
  if (!Number.isSafeInteger(pid) || pid <= 1) return undefined;
  const startTime = startTimeOf(pid);
  return startTime ? { pid, startTime } : undefined;
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

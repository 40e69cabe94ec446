// A supervised programme never outlives its supervisor: it watches its parent and stops itself
// when supervisord is gone (kill -9 leaves it with parent 1, still holding its ports and, for the
// API, still heartbeating to the mesh host).
//
// Why a poll of process.ppid: Node has no prctl(PR_SET_PDEATHSIG) binding, and supervisord passes
// its children no descriptor whose end-of-file would tell them; the bin scripts exec node, so the
// parent is supervisord itself and a changed ppid means it died. One getppid() every 250 ms is
// nothing next to the 2 s the box is given to be gone.

/** How often the parent is checked. */
export const PARENT_CHECK_MS = 250;
/** How long the programme's own SIGTERM handling may take before it is ended regardless. */
export const PARENT_GONE_DEADLINE_MS = 1_000;

/** Options of {@link watchParent}. */
export interface ParentWatchOptions {
  env?: Readonly<Record<string, string | undefined>>;
  /** Told once, when the parent is gone, before the programme's SIGTERM handling runs. */
  onGone?: (parent: number) => void;
  intervalMs?: number;
}

/**
 * Under supervisord (SUPERVISOR_ENABLED=1, which it sets for its children), SIGTERM this process
 * as supervisord would once the parent changes, and exit 1 if that has not ended it within
 * {@link PARENT_GONE_DEADLINE_MS}. Elsewhere (tests, `agentbox api`) does nothing. Returns a stop
 * function. The timer is unref'ed: it never keeps a finished programme alive.
 */
export function watchParent(options: ParentWatchOptions = {}): () => void {
  const env = options.env ?? process.env;
  if (env['SUPERVISOR_ENABLED'] !== '1') return () => {};
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    options.onGone?.(parent);
    setTimeout(() => process.exit(1), PARENT_GONE_DEADLINE_MS).unref();
    process.kill(process.pid, 'SIGTERM');
  }, options.intervalMs ?? PARENT_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

// Whether bubblewrap can give agents their own namespaces here: tried once for real, then remembered.
import { execFile } from 'node:child_process';

/** What the probe found. */
export interface NamespacesVerdict {
  /** `bwrap --unshare-user --unshare-net --ro-bind / / true` ran. */
  available: boolean;
  /** Why not, in bwrap's words (absent when available). */
  reason?: string;
  /** A fresh procfs mounts inside a new PID namespace (Docker's masked /proc prevents it). */
  freshProc: boolean;
  /**
   * `--disable-userns` works: bwrap sets user.max_user_namespaces in the agent's namespace, which
   * needs a writable /proc/sys (Docker mounts it read-only). Without it the launcher's seccomp
   * filter still refuses the agent new namespaces.
   */
  disableUserns: boolean;
  /** The uid the probe ran as: the one agents run as. */
  uid: number;
  checkedAt: string;
}

/** Who runs the probe, and with which bwrap. */
export interface ProbeOptions {
  bwrap: string;
  /** Drop to these ids first (agents of a box run as root run unprivileged; so must the probe). */
  uid?: number;
  gid?: number;
  clock?: () => Date;
}

const PROBE_TIMEOUT_MS = 5_000;
const verdicts = new Map<string, Promise<NamespacesVerdict>>();

/**
 * The verdict for `options`, probing on the first call only: user namespaces are a property of
 * the kernel and its seccomp/LSM policy, which do not change while the box runs.
 */
export function namespacesVerdict(options: ProbeOptions): Promise<NamespacesVerdict> {
  const key = `${options.bwrap}:${options.uid ?? ''}:${options.gid ?? ''}`;
  let verdict = verdicts.get(key);
  if (!verdict) {
    verdict = probe(options);
    verdicts.set(key, verdict);
  }
  return verdict;
}

async function probe(options: ProbeOptions): Promise<NamespacesVerdict> {
  const base = { uid: options.uid ?? process.getuid?.() ?? -1, checkedAt: (options.clock ?? (() => new Date()))().toISOString() };
  // bwrap starts from an empty root: the host's is bound read-only so that `true` exists.
  const userns = await run(options, ['--unshare-user', '--unshare-net', '--ro-bind', '/', '/', '--', 'true']);
  if (userns !== undefined) return { available: false, reason: userns, freshProc: false, disableUserns: false, ...base };
  // Only the root and /proc: the question is whether the kernel lets this PID namespace mount procfs.
  const proc = await run(options, ['--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', '--proc', '/proc', '--', 'true']);
  const nested = await run(options, ['--unshare-user', '--disable-userns', '--ro-bind', '/', '/', '--', 'true']);
  return { available: true, freshProc: proc === undefined, disableUserns: nested === undefined, ...base };
}

/** Undefined when bwrap ran `true` and exited 0; otherwise what went wrong. */
function run(options: ProbeOptions, args: string[]): Promise<string | undefined> {
  const ids = options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid };
  return new Promise((resolve) => {
    execFile(options.bwrap, args, { timeout: PROBE_TIMEOUT_MS, env: { PATH: '/usr/bin:/bin' }, ...ids }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      const code = (err as NodeJS.ErrnoException).code;
      const said = stderr.trim().split('\n').pop();
      resolve(code === 'ENOENT' ? `${options.bwrap} not found (install bubblewrap)` : said || `${options.bwrap} failed (${String(code ?? err.message)})`);
    });
  });
}

// The bubblewrap command line of one agent: its own namespaces, a root holding only what its Landlock policy grants.
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { SYSTEM_READ_ONLY, within } from './sandbox-policy.js';

/** How /proc is given to the agent: a fresh procfs of its PID namespace, or the outer one read-only. */
export type ProcMode = 'fresh' | 'ro-bind';

/** What one agent's sandbox is made of. */
export interface BwrapPlan {
  /** The bwrap executable. */
  bwrap: string;
  /** Bound read-only at the same path: the policy's read-only roots (real paths; /proc is handled by `proc`). */
  readOnly: readonly string[];
  /** Bound read-write at the same path: the agent's directory and its private temporary directory. */
  readWrite: readonly string[];
  /** The agent's working directory inside. */
  cwd: string;
  proc: ProcMode;
  /** Pass `--disable-userns` (default true): only where the probe found it works (not under Docker's read-only /proc/sys). */
  disableUserns?: boolean;
  /** Directories holding only the box's sandbox sockets, bound at the same path so the launcher's forwarder inside can reach the box. */
  sockets: readonly string[];
  /** Files bound read-only over a path inside (the sandbox's resolv.conf for transparent egress). */
  files?: ReadonlyArray<{ source: string; dest: string }>;
  /** Capabilities bubblewrap leaves the launcher (CAP_NET_BIND_SERVICE for the forwarder's port 53, 80, 443 …), which it drops before the agent runs. */
  capAdd?: readonly string[];
  /** The command run inside: the launcher with its policy, then the agent. */
  inner: readonly string[];
  /** Looks paths up; replaceable so the plan can be tested against a made-up tree. */
  probe?: (p: string) => 'dir' | 'file' | { link: string } | undefined;
}

/**
 * The argv of `bwrap` for one agent. Every namespace bwrap knows is new (user, PID, IPC, UTS,
 * network, cgroup) and the agent may not make more (`--disable-userns` where bwrap can set that, and
 * the launcher's seccomp filter inside in any case); it dies with the API
 * (`--die-with-parent`). The root is a tmpfs holding the same read-only roots the launcher's
 * Landlock policy grants, a minimal /dev, /proc, the agent's own directories read-write and the
 * directory of the forwarding sockets: no state, secrets, logs, run directory or other agents' directories exist
 * inside, and Landlock inside still decides what may be done with what does.
 */
export function bwrapArgv(plan: BwrapPlan): string[] {
  const probe = plan.probe ?? probePath;
  const args = [plan.bwrap, '--unshare-all', '--unshare-user', ...(plan.disableUserns === false ? [] : ['--disable-userns']), '--die-with-parent'];
  // The private /tmp first: binds below it (a checkout or a box root under /tmp) are made after, on top.
  args.push('--tmpfs', '/tmp');
  // Merged-/usr systems link /bin, /lib … into /usr: the links are recreated (the policy holds real paths).
  for (const dir of SYSTEM_READ_ONLY) {
    const kind = probe(dir);
    if (kind !== undefined && typeof kind === 'object') args.push('--symlink', kind.link, dir);
  }
  const bound: string[] = [];
  for (const p of plan.readOnly) {
    if (p === '/proc' || bound.some((b) => within(p, b))) continue;
    bound.push(p);
    args.push('--ro-bind', p, p);
  }
  for (const f of plan.files ?? []) args.push('--ro-bind', f.source, f.dest);
  args.push('--dev', '/dev');
  args.push(...(plan.proc === 'fresh' ? ['--proc', '/proc'] : ['--ro-bind', '/proc', '/proc']));
  // Bound read-only: connecting to a socket needs no write access to its mount.
  for (const s of plan.sockets) args.push('--ro-bind', s, s);
  for (const p of plan.readWrite) args.push('--bind', p, p);
  // bwrap grants added capabilities to an unprivileged caller's sandbox only as uid 0 inside (its
  // user namespace maps that uid to the caller's and no other); the launcher drops them all, and
  // SECBIT_NOROOT keeps uid 0 from regaining any at exec.
  if ((plan.capAdd ?? []).length > 0) args.push('--uid', '0', '--gid', '0');
  for (const cap of plan.capAdd ?? []) args.push('--cap-add', cap);
  args.push('--chdir', plan.cwd, '--', ...plan.inner);
  return args;
}

function probePath(p: string): 'dir' | 'file' | { link: string } | undefined {
  try {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return { link: readlinkSync(p) };
    return st.isDirectory() ? 'dir' : 'file';
  } catch {
    return undefined;
  }
}

/** Every host path the plan binds: bwrap opens each as the agent's uid, so each must be reachable by it. */
export function boundPaths(plan: Pick<BwrapPlan, 'readOnly' | 'readWrite' | 'sockets'>): string[] {
  return [...plan.readOnly.filter((p) => p !== '/proc'), ...plan.readWrite, ...plan.sockets].map((p) => path.resolve(p));
}

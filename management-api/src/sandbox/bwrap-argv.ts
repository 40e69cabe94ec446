// The bubblewrap command line of one agent: its own namespaces, a minimal read-only root, its directory read-write.
import { lstatSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * System directories an agent may read: programmes, libraries and configuration. Each is bound
 * read-only when it is a directory on this machine, recreated as the same link when it is one
 * (merged-/usr systems link /bin, /lib … into /usr), and left out when absent.
 */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/nix'] as const;

/** How /proc is given to the agent: a fresh procfs of its PID namespace, or the outer one read-only. */
export type ProcMode = 'fresh' | 'ro-bind';

/** One loopback port inside the sandbox and the unix socket (bound into the sandbox) it leads to. */
export interface ForwardedPort {
  port: number;
  socket: string;
}

/** What one agent's sandbox is made of. */
export interface BwrapPlan {
  /** The bwrap executable. */
  bwrap: string;
  /** The agent's working directory (real path): the only writable place, bound at the same path. */
  agentDir: string;
  proc: ProcMode;
  /** Extra files or directories bound read-only at the same path (the node binary, the launcher). */
  readOnly: readonly string[];
  /** Unix sockets bound at the same path so the forwarder inside can reach the box. */
  sockets: readonly string[];
  /** Variables set inside (after the caller's environment, which bwrap passes on). */
  setenv?: Readonly<Record<string, string>>;
  /** The command run inside, already composed (forwarder, process limit, launcher, agent). */
  inner: readonly string[];
  /** Looks paths up; replaceable so the plan can be tested against a made-up tree. */
  probe?: (p: string) => 'dir' | 'file' | { link: string } | undefined;
}

/**
 * The argv of `bwrap` for one agent. Every namespace bwrap knows is new (user, PID, IPC, UTS,
 * network, cgroup) and the agent may not make more (`--disable-userns`); it dies with the API
 * (`--die-with-parent`). The root is a tmpfs holding only the system directories (read-only),
 * a private /tmp, a minimal /dev, /proc, the agent's own directory and the forwarding sockets:
 * no state, secrets, logs, run directory or other agents' directories exist inside.
 */
export function bwrapArgv(plan: BwrapPlan): string[] {
  const probe = plan.probe ?? probePath;
  const args = [plan.bwrap, '--unshare-all', '--unshare-user', '--disable-userns', '--die-with-parent'];
  for (const dir of SYSTEM_DIRS) {
    const kind = probe(dir);
    if (kind === 'dir') args.push('--ro-bind', dir, dir);
    else if (kind !== undefined && kind !== 'file') args.push('--symlink', kind.link, dir);
  }
  for (const p of plan.readOnly) {
    if (!covered(p)) args.push('--ro-bind', p, p);
  }
  args.push('--dev', '/dev', '--tmpfs', '/tmp');
  args.push(...(plan.proc === 'fresh' ? ['--proc', '/proc'] : ['--ro-bind', '/proc', '/proc']));
  // Sockets are bound read-only: connecting to a socket needs no write access to its mount.
  for (const s of plan.sockets) args.push('--ro-bind', s, s);
  args.push('--bind', plan.agentDir, plan.agentDir, '--chdir', plan.agentDir);
  for (const [name, value] of Object.entries(plan.setenv ?? {})) args.push('--setenv', name, value);
  args.push('--', ...plan.inner);
  return args;
}

/** A path already inside one of the bound system directories needs no bind of its own. */
function covered(p: string): boolean {
  return SYSTEM_DIRS.some((d) => p === d || p.startsWith(d + path.sep));
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

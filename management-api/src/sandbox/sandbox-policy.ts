// The confinement of one agent as data, and the launcher command line that applies it.
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** Resource limits the launcher sets (soft = hard, so the agent cannot raise them). */
export interface SandboxRlimits {
  /** RLIMIT_DATA in bytes (sandbox.limits.memory). */
  dataBytes: number;
  /** RLIMIT_CPU in seconds (sandbox.limits.cpu_seconds). */
  cpuSeconds: number;
  /** RLIMIT_NOFILE (sandbox.limits.open_files). */
  openFiles: number;
  /** RLIMIT_FSIZE in bytes (sandbox.limits.file_size). */
  fileSizeBytes: number;
  /** RLIMIT_NPROC (sandbox.limits.processes): set only in a user namespace of the agent's own, where it counts that agent alone. */
  processes?: number;
}

/** A loopback port inside the agent's network namespace and the unix socket its connections go to. */
export interface ForwardedPort {
  port: number;
  socket: string;
}

/** Everything one agent is allowed: the launcher denies the rest. */
export interface SandboxPolicy {
  /** Read and execute beneath each (missing ones are skipped by the launcher). */
  readOnly: readonly string[];
  /** Read, write and execute beneath each: the agent's own directory and its private temporary directory. */
  readWrite: readonly string[];
  /** Device files it may read and write (/dev/null …). */
  devices: readonly string[];
  /** TCP ports it may connect to (any address): the API and the egress proxy. */
  connectPorts: readonly number[];
  rlimits: SandboxRlimits;
  /** A Landlock ABI to require above the launcher's own minimum (tests simulate an older kernel with it). */
  requireAbi?: number;
  /** Ports the launcher's forwarder listens on inside the agent's network namespace (bubblewrap only). */
  forwards?: readonly ForwardedPort[];
  /**
   * Transparent egress (bubblewrap only): the forwarder answers DNS on 127.0.0.1:53 and passes
   * connections to the names it resolved, on these ports, to the egress proxy at `via` as
   * CONNECT name:port with the agent's credential (agentbox-names.c).
   */
  transparent?: { ports: readonly number[]; via: string };
  /** A descriptor the launcher writes one byte to once the forwarder listens and signals are reset. */
  readyFd?: number;
  /**
   * A descriptor the launcher writes the agent's wait status to when it ends, staying as its parent
   * to do so (bubblewrap only: bubblewrap reports a signal n as status 128+n).
   */
  statusFd?: number;
  /**
   * The launcher stays as the keeper of the agent's processes (agentbox-keeper.c): every process
   * the agent starts, however it detaches, stays its descendant and ends with it. Without
   * bubblewrap only (its PID namespace does the same there).
   */
  keep?: boolean;
  /** The agent has an IPC namespace of its own (bubblewrap): SysV IPC and POSIX message queues are then allowed. */
  ownIpc?: boolean;
  /**
   * With `keep` or `statusFd`: the launcher that stays beside the agent (the keeper, or the waiting
   * parent in bubblewrap) kills every process of the agent once their resident memory passes this
   * many bytes, and says so on `readyFd`, which then stays open.
   */
  memoryLimit?: number;
}

/** System directories agents read and execute from; absent ones are skipped. /proc is read for the agent's own process information. */
export const SYSTEM_READ_ONLY = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/nix/store', '/proc'] as const;

/** Device files every program may expect to open. */
export const DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom'] as const;

/**
 * The launcher argv prefix for `policy`: `[launcher, ...options, '--']`; append the command and
 * its arguments. Exported for every part that starts agents.
 */
export function launcherArgv(launcher: string, policy: SandboxPolicy): string[] {
  const argv = [launcher];
  for (const p of policy.readOnly) argv.push('--ro', p);
  for (const p of policy.readWrite) argv.push('--rw', p);
  for (const p of policy.devices) argv.push('--dev', p);
  for (const port of policy.connectPorts) argv.push('--connect', String(port));
  const r = policy.rlimits;
  argv.push('--rlimit', `data=${r.dataBytes}`, '--rlimit', `cpu=${r.cpuSeconds}`, '--rlimit', `nofile=${r.openFiles}`, '--rlimit', `fsize=${r.fileSizeBytes}`);
  if (r.processes !== undefined) argv.push('--rlimit', `nproc=${r.processes}`);
  for (const f of policy.forwards ?? []) argv.push('--forward', `${f.port}=${f.socket}`);
  if (policy.transparent && policy.transparent.ports.length > 0) {
    for (const port of policy.transparent.ports) argv.push('--transparent', String(port));
    argv.push('--transparent-via', policy.transparent.via);
  }
  if (policy.readyFd !== undefined) argv.push('--ready-fd', String(policy.readyFd));
  if (policy.statusFd !== undefined) argv.push('--status-fd', String(policy.statusFd));
  if (policy.ownIpc) argv.push('--own-ipc');
  if (policy.keep) argv.push('--keep');
  if ((policy.keep || policy.statusFd !== undefined) && policy.memoryLimit) argv.push('--memory-limit', String(Math.ceil(policy.memoryLimit)));
  if (policy.requireAbi !== undefined) argv.push('--require-abi', String(policy.requireAbi));
  argv.push('--');
  return argv;
}

/** Bytes of a manifest size (`^[0-9]+[kmg]?$`, binary units): `2g` is 2 GiB. */
export function sizeBytes(text: string): number {
  const m = /^([0-9]+)([kmg]?)$/.exec(text);
  if (!m) throw new Error(`sandbox: size ${JSON.stringify(text)} is not a number with an optional unit k, m or g`);
  return Number(m[1]) * 1024 ** ' kmg'.indexOf(m[2] || ' ');
}

/**
 * The read-only grants for `roots` that leave out everything beneath `excluded`. Landlock grants
 * whole hierarchies, so a root holding an excluded path is replaced by its entries (recursively)
 * minus the excluded one: in the local mode the box's state lives inside the checkout the agent
 * runs Node from. Paths are compared by their real paths; missing roots are dropped.
 */
export function grantableRoots(roots: readonly string[], excluded: readonly string[]): string[] {
  const ex = excluded.map(real).filter((p): p is string => p !== undefined);
  const out: string[] = [];
  const visit = (dir: string): void => {
    if (ex.some((e) => within(dir, e))) return;
    if (!ex.some((e) => within(e, dir))) {
      out.push(dir);
      return;
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const child = real(path.join(dir, name));
      if (child !== undefined) visit(child);
    }
  };
  for (const root of roots) {
    const r = real(root);
    if (r !== undefined && !out.includes(r)) visit(r);
  }
  return [...new Set(out)];
}

/** True when `p` is `dir` or beneath it. */
export function within(p: string, dir: string): boolean {
  return p === dir || p.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

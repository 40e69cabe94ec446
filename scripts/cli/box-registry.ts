// The boxes running on this machine for this user: one JSON file per box (keyed by its root) in a
// private runtime directory, written by `agentbox up` and trusted only while supervisord's pid is
// alive and still the supervisord of that root (a pid is reused once its process is gone).
import { createHash } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { takeFileLock } from '../../management-api/src/file-lock.js';

/** One port of a running box. */
export interface RegisteredPort {
  name: string;
  port: number;
}

/** What `agentbox up` records about a box it started. */
export interface BoxEntry {
  root: string;
  manifest: string;
  /** supervisord's pid (the entrypoint execs it): the box lives as long as it does. */
  pid: number;
  /**
   * That process's start time (clock ticks since boot, /proc/<pid>/stat): the same pid with the same
   * start time is the same process, from the box's first moment — before the entrypoint has become
   * supervisord, when its command line does not name the configuration yet.
   */
  pidStartTime?: number;
  /** The `agentbox up` that owns it; absent for a box started with --detach. */
  upPid?: number;
  supervisordConf: string;
  apiUrl: string;
  metricsUrl: string;
  ports: RegisteredPort[];
  startedAt: string;
}

/** The registry directory: $XDG_RUNTIME_DIR/agentbox, else /tmp/agentbox-<uid> (0700, this user's own). */
export function registryDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const runtime = env['XDG_RUNTIME_DIR'];
  return runtime ? path.join(runtime, 'agentbox') : path.join('/tmp', `agentbox-${process.getuid?.() ?? 0}`);
}

/** The entry file of the box under `root`. */
export function entryFile(dir: string, root: string): string {
  return path.join(dir, `box-${createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 16)}.json`);
}

/**
 * The registry directory, created 0700. Refused when it is a symlink or someone else's: in /tmp
 * another user could have made it first to read or plant entries.
 */
function ownDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid()))
    throw new Error(`${dir} is not a directory of this user; remove it (or set XDG_RUNTIME_DIR)`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** Record a box (replacing an earlier entry of the same root). */
export function registerBox(entry: BoxEntry, dir = registryDir()): string {
  const file = entryFile(ownDir(dir), entry.root);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(entry, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** Forget the box under `root`, when its entry is the one of supervisord `pid` (or any, without pid). */
export function unregisterBox(root: string, pid?: number, dir = registryDir()): void {
  const file = entryFile(dir, root);
  const entry = readEntry(file);
  if (entry && pid !== undefined && entry.pid !== pid) return;
  rmSync(file, { force: true });
}

function readEntry(file: string): BoxEntry | undefined {
  try {
    const e = JSON.parse(readFileSync(file, 'utf8')) as Partial<BoxEntry>;
    return typeof e.root === 'string' && typeof e.pid === 'number' && typeof e.supervisordConf === 'string' ? (e as BoxEntry) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `pid` is a live process (a zombie, dead but not yet reaped, is not). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The state follows the command name in parentheses, which may itself hold ") ".
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

/** Whether `pid` is alive and runs supervisord with `conf` (so not a stranger that got the pid later). */
export function isBoxSupervisor(pid: number, conf: string): boolean {
  if (!processAlive(pid)) return false;
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.some((a) => a.endsWith('supervisord')) && argv.includes(conf);
  } catch {
    return false;
  }
}

/**
 * Whether the process of `entry` still runs: the same pid and start time where the entry has one
 * (so a box that is still starting, and another command reading the registry meanwhile, never see
 * it as gone), else a supervisord of its configuration.
 */
export function entryAlive(entry: BoxEntry): boolean {
  if (entry.pidStartTime === undefined) return isBoxSupervisor(entry.pid, entry.supervisordConf);
  const stat = readStat(entry.pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === entry.pidStartTime;
}

/**
 * Take the registry's lock (takeFileLock: the kernel's, released when its holder ends) for the short
 * step from checking ports to recording the box: two boxes started at once then never pick the
 * same free port. One held past `waitMs` is ignored (said on stderr), as a box started regardless is
 * still checked by its programmes. Resolves to the release.
 */
export async function lockRegistry(dir = registryDir(), waitMs = 10_000): Promise<() => void> {
  const lock = path.join(ownDir(dir), 'lock.db');
  const release = await takeFileLock(lock, waitMs);
  if (release) return release;
  process.stderr.write(`agentbox: ${lock} has been held by another agentbox command for more than ${waitMs / 1000} s; going on without it\n`);
  return () => undefined;
}

/** The boxes running now; entries whose supervisord is gone are removed on the way. */
export function runningBoxes(dir = registryDir()): BoxEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith('box-') && n.endsWith('.json'));
  } catch {
    return [];
  }
  const boxes: BoxEntry[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    const entry = readEntry(file);
    if (entry && entryAlive(entry)) boxes.push(entry);
    else rmSync(file, { force: true });
  }
  return boxes.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}

/** The running box under `root`, if any. */
export function boxAt(root: string, dir = registryDir()): BoxEntry | undefined {
  const abs = path.resolve(root);
  return runningBoxes(dir).find((b) => b.root === abs);
}

/**
 * supervisord's pid for the box under `root`: from the registry, else from its pid file (a box
 * started before the registry, or whose entry was removed), checked to be that box's supervisord.
 */
export function runningSupervisor(root: string, dir = registryDir()): number | undefined {
  const registered = boxAt(root, dir);
  if (registered) return registered.pid;
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  let pid = 0;
  try {
    pid = Number(readFileSync(paths.supervisorPidfile, 'utf8').trim());
  } catch {
    return undefined;
  }
  return Number.isSafeInteger(pid) && pid > 1 && isBoxSupervisor(pid, paths.supervisordConf) ? pid : undefined;
}

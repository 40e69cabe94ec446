// A Docker engine of one's own for tests and benchmarks: dockerd with all its state under a
// temporary directory and its socket there, stopped by its pid, its state removed, and the host
// setting it turns on (net.ipv4.ip_forward) put back.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { docker } from './docker.js';
import { holdIpForward } from './ip-forward-guard.js';

// Debian's docker.io installs /usr/sbin/dockerd, Docker's own packages /usr/bin/dockerd.
const DOCKERD_PATHS = ['/usr/sbin/dockerd', '/usr/bin/dockerd'];

/** Pids of processes whose command line names `dir`. */
/** Mount points at or below `dir`, deepest first (from /proc/self/mountinfo; octal escapes such as \040 decoded). */
function mountsUnder(dir: string): string[] {
  const text = existsSync('/proc/self/mountinfo') ? readFileSync('/proc/self/mountinfo', 'utf8') : '';
  return text
    .split('\n')
    .map((line) => line.split(' ')[4]?.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8))))
    .filter((p): p is string => p !== undefined && (p === dir || p.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
}

function processesUnder(dir: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A running engine. */
export interface PrivateEngine {
  /** unix://… of its socket: pass as DOCKER_HOST. */
  host: string;
  /** process.env with DOCKER_HOST set to this engine. */
  env: NodeJS.ProcessEnv;
  /** Everything dockerd logged so far. */
  log(): string;
  /** Stop it (SIGTERM, then SIGKILL after 20 s), remove its state, restore ip_forward. */
  stop(): Promise<void>;
}

/** The engine could not start; the message says why, in dockerd's own words. */
export class EngineStartError extends Error {
  override name = 'EngineStartError';
  /** The state directory the failed start made (and removed), when it got that far. */
  stateDir?: string;
}

/**
 * Start dockerd. Containers get a user-defined bridge network from compose, published ports go
 * through docker-proxy on the host addresses the compose file names; dockerd writes no iptables
 * rules and creates no default bridge, so nothing of the host's firewall changes.
 */
export async function startPrivateEngine(options: { timeoutMs?: number; extraArgs?: readonly string[] } = {}): Promise<PrivateEngine> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const DOCKERD = DOCKERD_PATHS.find((p) => existsSync(p));
  if (!DOCKERD)
    throw new EngineStartError(
      `no dockerd in ${DOCKERD_PATHS.join(' or ')}: install docker.io (apt-get install docker.io), or set AGENTBOX_E2E=skip to skip the container cases`,
    );
  if (process.getuid?.() !== 0) throw new EngineStartError('dockerd needs root: run the suite as root (CI does)');
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-engine-'));
  const sock = path.join(dir, 'docker.sock');
  // Engines of parallel test files share the setting: the last one to stop puts it back.
  const releaseIpForward = await holdIpForward(path.basename(dir));
  const logFile = path.join(dir, 'dockerd.log');
  const fd = openSync(logFile, 'a');
  const args = [
    '--data-root',
    path.join(dir, 'data'),
    '--exec-root',
    path.join(dir, 'exec'),
    '--pidfile',
    path.join(dir, 'docker.pid'),
    '-H',
    `unix://${sock}`,
    '--iptables=false',
    '--ip6tables=false',
    '--bridge=none',
    ...(options.extraArgs ?? []),
  ];
  // --pdeathsig: should this process die without stopping it, dockerd still gets SIGTERM and
  // shuts its containers down rather than running on unowned.
  const proc: ChildProcess = spawn('setpriv', ['--pdeathsig', 'SIGTERM', '--', DOCKERD, ...args], { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const log = (): string => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
  const env = { ...process.env, DOCKER_HOST: `unix://${sock}` };
  const cleanup = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(killer);
    }
    // dockerd's containerd outlives it by a moment and still writes under the state directory.
    for (let i = 0; i < 100 && processesUnder(dir).length; i++) await new Promise((r) => setTimeout(r, 100));
    await releaseIpForward();
    // A dockerd that died at start-up leaves its own mounts below its state directory (its data
    // root bound onto itself): undone first, deepest first, or the removal fails with EBUSY.
    for (const mountPoint of mountsUnder(dir)) spawnSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      const why = log().trim().split('\n').slice(-5).join('\n');
      await cleanup().catch(() => undefined);
      throw Object.assign(new EngineStartError(`dockerd exited during start-up (${proc.exitCode ?? proc.signalCode}):\n${why}`), { stateDir: dir });
    }
    if (existsSync(sock)) {
      try {
        docker(['version', '--format', '{{.Server.Version}}'], env);
        break;
      } catch {
        // The socket exists a moment before the API answers.
      }
    }
    if (Date.now() > deadline) {
      const why = log().trim().split('\n').slice(-5).join('\n');
      await cleanup().catch(() => undefined);
      throw Object.assign(new EngineStartError(`dockerd did not answer on ${sock} within ${timeoutMs} ms:\n${why}`), { stateDir: dir });
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { host: env.DOCKER_HOST, env, log, stop: cleanup };
}

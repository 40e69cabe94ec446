// Starts a real box for the runtime-contract suite: renders the manifest with the Nix library,
// runs the very entrypoint the image uses (optionally inside bubblewrap: read-only root, tmpfs,
// uid 1000, no capabilities, no network), captures its event lines, and stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { renderManifest, writeRendered } from '../../../scripts/cli/render-box.js';
import { repoRoot } from '../../helpers/cli.js';
import { waitFor } from '../../helpers/wait.js';
import { freePort } from '../../helpers/free-port.js';
export { freePort };
import { eventLines } from '../../helpers/boot-event-lines.js';

/** A manifest with every adapter off: boots fast and isolates boot behaviour from the adapters. */
export const BOOT_ONLY_MANIFEST = `[adapters]
beads = "off"
pods = "off"
memory = "off"
events = "off"
orchestrator = "off"
critical = []
`;

/** A running (or finished) box. */
export interface BoxRun {
  /** The box's root as the box sees it. */
  root: string;
  /** The same root as the host sees it (differs under bubblewrap). */
  hostRoot: string;
  apiUrl: string;
  proc: ChildProcess;
  /** Everything the box printed so far (stdout and stderr interleaved), line by line. */
  readonly lines: string[];
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The JSON event lines with an `event` field. */
  events(): Array<Record<string, unknown> & { event: string }>;
  /** SIGTERM the entrypoint (supervisord) and wait for it; resolves to the time it took. */
  stop(): Promise<number>;
}

/** Options of a run. */
export interface StartOptions {
  manifest: string;
  /** Run inside bubblewrap as uid 1000 with a read-only root (true) or as this user on the host. */
  sandbox?: boolean;
  /** Share the host network namespace with the sandbox (to probe the API from here). */
  shareNet?: boolean;
  /** Extra environment for the entrypoint. */
  env?: Record<string, string>;
  /** Leave AGENTBOX_LOCAL unset (the image behaviour: the root must be read-only). */
  imageMode?: boolean;
  /** A command the entrypoint runs under (for example a tracer), host mode only. */
  wrapWith?: string[];
  /** Runs before the box starts, with its root as the host sees it (to put a key in place, say). */
  prepare?: (hostRoot: string) => void | Promise<void>;
}

/** Render and start a box; resolves once the entrypoint process is spawned. */
export async function startBox(options: StartOptions): Promise<BoxRun> {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-rc-'));
  chmodSync(work, 0o755);
  const hostRoot = path.join(work, 'root');
  mkdirSync(hostRoot, { recursive: true });
  // Under bubblewrap the box's root is a path on the sandbox's own tmpfs.
  const root = options.sandbox ? '/tmp/box' : hostRoot;
  // The configs live where the box expects them, <root>/etc/agentbox (bound there under bubblewrap).
  const configDir = options.sandbox ? path.join(work, 'config') : path.join(hostRoot, 'etc/agentbox');
  const manifestFile = path.join(configDir, 'agentbox.toml');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(manifestFile, options.manifest);
  // Under bubblewrap the app is bound at the image's location, /opt/agentbox: the checkout itself
  // may live under /tmp, which the sandbox replaces with its own tmpfs.
  const appDir = options.sandbox ? '/opt/agentbox' : repoRoot;
  const { validation, rendered } = await renderManifest({
    manifestFile,
    outDir: configDir,
    root,
    bin: path.join(appDir, 'config/bin'),
    workspaceDir: path.join(root, 'workspace'),
    context: { targetArch: 'x86_64', env: {} },
  });
  if (!rendered) throw new Error(`test manifest invalid: ${JSON.stringify(validation.diagnostics)}`);
  await writeRendered(configDir, rendered.files);
  chmodSync(configDir, 0o755);

  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const boxConfig = options.sandbox ? path.join(root, 'etc/agentbox') : configDir;
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: options.sandbox ? '/tmp' : (process.env['HOME'] ?? '/tmp'),
    AGENTBOX_ROOT: root,
    AGENTBOX_MANIFEST: path.join(boxConfig, 'agentbox.toml'),
    AGENTBOX_ARTIFACTS: path.join(boxConfig, 'artifacts.json'),
    AGENTBOX_SUPERVISORD_CONF: path.join(boxConfig, 'supervisord.conf'),
    AGENTBOX_API_PORT: String(apiPort),
    AGENTBOX_METRICS_PORT: String(metricsPort),
    // The egress proxy on any free port: boxes of parallel tests would share 3128.
    AGENTBOX_EGRESS_PORT: '0',
    ...(options.imageMode ? {} : { AGENTBOX_LOCAL: '1' }),
    ...options.env,
  };
  await options.prepare?.(hostRoot);
  const entrypoint = path.join(appDir, 'config/bin/agentbox-entrypoint');
  // As root, drop to uid/gid 1000 before bubblewrap, so the box is uid 1000 on the host too
  // (bubblewrap then builds an unprivileged user namespace).
  const asUid1000 = process.getuid?.() === 0 ? ['setpriv', '--reuid', '1000', '--regid', '1000', '--clear-groups'] : [];
  const argv = options.sandbox
    ? [
        ...asUid1000,
        'bwrap',
        '--ro-bind',
        '/',
        '/',
        '--dev',
        '/dev',
        '--proc',
        '/proc',
        '--tmpfs',
        '/tmp',
        '--tmpfs',
        '/run',
        '--tmpfs',
        '/var/log',
        '--ro-bind',
        configDir,
        boxConfig,
        // /opt/agentbox does not exist on the host: mount it on an empty tmpfs, then make that read-only.
        '--tmpfs',
        '/opt',
        '--ro-bind',
        repoRoot,
        appDir,
        '--remount-ro',
        '/opt',
        '--unshare-all',
        ...(options.shareNet ? ['--share-net'] : []),
        '--cap-drop',
        'ALL',
        '--die-with-parent',
        '--clearenv',
        ...Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v]),
        entrypoint,
      ]
    : [...(options.wrapWith ?? []), entrypoint];
  // A file, not a pipe from Node: Node's stdio pipes are sockets, and supervisord cannot reopen a
  // socket through /dev/stdout (ENXIO) as it does to forward its programmes' output.
  const logFile = path.join(work, 'box.log');
  const logFd = openSync(logFile, 'a');
  // supervisord reopens it through /dev/stdout, as the box's own user.
  if (asUid1000.length) chownSync(logFile, 1000, 1000);
  const proc = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', logFd, logFd] });
  closeSync(logFd);
  const readLines = (): string[] => readFileSync(logFile, 'utf8').split('\n').filter(Boolean);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    root,
    hostRoot,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    proc,
    get lines() {
      return readLines();
    },
    exit,
    events() {
      return eventLines(readLines());
    },
    stop: async () => {
      const t0 = Date.now();
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await exit;
      return Date.now() - t0;
    },
  };
}

/** GET `url` and return the status, or 0 when nothing answers. */
export async function statusOf(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

/** Wait until `url` answers `status`. */
export function waitForStatus(url: string, status: number, timeoutMs = 30_000): Promise<boolean> {
  return waitFor(`${url} to answer ${status}`, async () => (await statusOf(url)) === status, timeoutMs, 50);
}

// Output throughput of a tty agent: `cat` of a large text file through the real process manager (sandbox on), with the server-side screen, with and without a WebSocket viewer, beside a raw node-pty terminal and a piped agent in the same process; the API's event loop and main-thread CPU meanwhile.
import { spawn } from 'node:child_process';
import { closeSync, chmodSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pty from 'node-pty';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { repoPath } from '../cli/repo-path.js';
import { median, ms, quantile, table } from './stats.js';
import { benchDir, benchManager, removeDir } from './tty-bench-manager.js';

const MIB = Number(process.env['AGENTBOX_BENCH_TTY_MIB'] ?? 200);
const ROUNDS = Number(process.env['AGENTBOX_BENCH_TTY_ROUNDS'] ?? 2);
const END_MARK = 'END-OF-BENCH-FILE';
const FILE = 'tty-bench.txt';
/** The agents' shared working directory in the workspace, where the file is. */
const CWD = 'tty-bench';

/** Source-like lines, some coloured as a compiler or test runner colours them: what an agent's terminal carries, not zeros. */
const LINES = [
  'export function parseManifest(source: string, options: ParseOptions = {}): Manifest {',
  '  const diagnostics: Diagnostic[] = []; // collected, then sorted by position',
  '\x1b[32m✓\x1b[0m tests/api/agents.test.ts \x1b[2m(42 tests)\x1b[0m \x1b[33m318ms\x1b[0m',
  '    if (!isObject(value)) throw new ManifestError("expected a table at " + path.join("."));',
  '\x1b[1;31merror\x1b[0m\x1b[1m[E0308]\x1b[0m: mismatched types at src/main.rs:120:17',
  '  for (const [key, entry] of Object.entries(table)) result.set(key, normalise(entry));',
  'diff --git a/management-api/src/routes/agents-routes.ts b/management-api/src/routes/agents-routes.ts',
  '\x1b[36m@@ -110,7 +110,9 @@\x1b[0m export function registerAgentRoutes(app: FastifyInstance): void {',
  '\x1b[31m-    return reply.code(201).send({ agent });\x1b[0m',
  '\x1b[32m+    return reply.code(201).header("location", "/v1/agents/" + agent.id).send({ agent });\x1b[0m',
  '  }',
  '',
];

/** Write `mib` MiB of LINES (numbered) to `file`, readable by an agent of another uid. */
function writeTextFile(file: string, mib: number): number {
  const fd = openSync(file, 'w', 0o644);
  let written = 0;
  let n = 0;
  try {
    while (written < mib * 1024 * 1024) {
      const block: string[] = [];
      for (let size = 0; size < 1024 * 1024; n++) {
        const line = `${String(n).padStart(7)}  ${LINES[n % LINES.length]}\n`;
        block.push(line);
        size += line.length;
      }
      written += writeSync(fd, block.join(''));
    }
    written += writeSync(fd, `${END_MARK}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o644);
  return written;
}

/** One run: wall time to the agent's exit, to its screen being current, the API's CPU and event loop meanwhile. */
interface Run {
  exitMs: number;
  /** Until a viewer attaching after the exit got a screen showing the end of the file (tty rows). */
  screenMs?: number;
  /** CPU of the whole process (all threads: the emulators' worker, GC helpers, the thread pool). */
  cpuMs: number;
  /** CPU of the API's main thread, the one that runs its event loop. */
  mainCpuMs: number;
  /** Longest gap between two turns of the loop probe, and its 99th percentile (wall). */
  loopMax: number;
  loopP99: number;
  /** Most CPU time the main thread used within one gap. */
  loopCpuMax: number;
  /** Bytes the WebSocket viewer received and how it was closed (the viewer row). */
  viewer?: { bytes: number; code: number };
}

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`;

/**
 * CPU time of the main thread so far (ms): the kernel's count for that thread alone, in ns (the
 * first field of its schedstat), so the emulators' worker is not counted; the whole process's
 * (process.cpuUsage) where the kernel does not keep it.
 */
function mainThreadCpuMs(): number {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  }
}

/**
 * The event loop while `stop` is not called: a 1 ms timer chain records each gap between two of
 * its turns (wall) and the main thread's CPU time in that gap. On a machine shared with other work
 * a long wall gap may be time spent waiting for a core; a long CPU gap is the API holding the loop.
 */
function loopProbe(): () => { wallMax: number; wallP99: number; cpuMax: number } {
  const walls: number[] = [];
  let cpuMax = 0;
  let last = performance.now();
  let lastCpu = mainThreadCpuMs();
  let timer: NodeJS.Timeout;
  const tick = (): void => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    walls.push(now - last);
    cpuMax = Math.max(cpuMax, cpu - lastCpu);
    last = now;
    lastCpu = cpu;
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return () => {
    clearTimeout(timer);
    return { wallMax: Math.max(...walls), wallP99: quantile(walls, 0.99), cpuMax };
  };
}

/** Measure `body` (resolving to its own milestones) with the loop probe and the API's CPU. */
async function measured(body: (started: number) => Promise<Partial<Run>>): Promise<Run> {
  const stop = loopProbe();
  const cpu = process.cpuUsage();
  const mainCpu = mainThreadCpuMs();
  const started = performance.now();
  const result = await body(started);
  const used = process.cpuUsage(cpu);
  const mainCpuMs = mainThreadCpuMs() - mainCpu;
  const loop = stop();
  return { exitMs: 0, ...result, cpuMs: (used.user + used.system) / 1000, mainCpuMs, loopMax: loop.wallMax, loopP99: loop.wallP99, loopCpuMax: loop.cpuMax };
}

async function rawNodePty(file: string): Promise<Run> {
  return measured(async (started) => {
    const term = pty.spawn('/bin/cat', [file], { cols: 120, rows: 40 });
    let chars = 0;
    term.onData((d) => {
      chars += d.length;
    });
    await new Promise<void>((resolve) => term.onExit(() => resolve()));
    if (chars < MIB * 1024 * 1024) throw new Error(`tty bench: node-pty delivered ${chars} characters`);
    return { exitMs: performance.now() - started };
  });
}

/** Resolves once agent `id` has exited and its output has ended. */
async function ended(manager: ProcessManager, id: string): Promise<void> {
  // A 5 ms poll: against runs of seconds, cheaper for the loop than following 200 MB of chunks.
  while (manager.status(id).endedAt === undefined || !manager.outputLog(id).ended) await new Promise((r) => setTimeout(r, 5));
}

/** The screen a viewer attaching now gets first. */
function lateScreen(manager: ProcessManager, id: string): Promise<string> {
  return new Promise((resolve) => {
    const attachment = manager.terminal(id).attach({
      data: (bytes) => {
        attachment.detach();
        resolve(bytes.toString('utf8'));
      },
      control: () => undefined,
      buffered: () => 0,
      close: () => undefined,
    });
  });
}

/** A viewer connected before the agent starts: its socket on the box's side, and what it reports at its close. */
interface Peer {
  socket: WebSocket;
  report: Promise<{ bytes: number; code: number }>;
}

async function viaManager(manager: ProcessManager, name: string, tty: boolean, peer?: Peer): Promise<Run> {
  return measured(async (started) => {
    const agent = await manager.spawn({ name, command: '/bin/cat', args: [FILE], cwd: CWD, tty });
    if (peer) attachSocket(manager, agent.id, peer.socket);
    await ended(manager, agent.id);
    const exitMs = performance.now() - started;
    if (!tty) return { exitMs };
    const screen = await lateScreen(manager, agent.id);
    if (!screen.includes(END_MARK))
      throw new Error(
        `tty bench: the screen after ${name} does not show the end of the file: ${JSON.stringify(screen.slice(-300))}, ${JSON.stringify(manager.status(agent.id))}`,
      );
    return { exitMs, screenMs: performance.now() - started, ...(peer ? { viewer: await peer.report } : {}) };
  });
}

/** Attach `socket` to agent `id`'s terminal as the terminal route does. */
function attachSocket(manager: ProcessManager, id: string, socket: WebSocket): void {
  const attachment = manager.terminal(id).attach({
    data: (bytes) => socket.send(bytes, { binary: true }),
    control: (record) => socket.send(JSON.stringify(record)),
    buffered: () => socket.bufferedAmount,
    close: (code, reason) => socket.close(code, reason.slice(0, 120)),
  });
  socket.on('close', () => attachment.detach());
}

/** Start a viewer process and wait for its connection to `server`. */
async function connectPeer(server: WebSocketServer): Promise<Peer> {
  const connected = new Promise<WebSocket>((resolve) => server.once('connection', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const child = spawn(process.execPath, [repoPath('dist/scripts/bench/tty-viewer-peer.js'), url], { stdio: ['ignore', 'pipe', 'inherit'] });
  const report = (async () => {
    for await (const line of createInterface({ input: child.stdout! }))
      if ((line as string).startsWith('{')) return JSON.parse(line as string) as { bytes: number; code: number };
    throw new Error('tty bench: the viewer ended without a report');
  })();
  // Not left unhandled while the agent runs: awaited by the row.
  report.catch(() => undefined);
  return { socket: await connected, report };
}

/** Run the throughput benchmark and return its report. */
export async function runTtyThroughputBench(): Promise<string> {
  const dir = benchDir('agentbox-tty-throughput-');
  const box = await benchManager(dir, 'box');
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  try {
    await new Promise((resolve) => server.once('listening', resolve));
    mkdirSync(path.join(box.manager.workspace!, CWD), { mode: 0o755 });
    const file = path.join(box.manager.workspace!, CWD, FILE);
    const bytes = writeTextFile(file, MIB);
    const idle = await measured(() => new Promise((r) => setTimeout(() => r({}), 2000)));
    const rows: Array<{ label: string; runs: Run[] }> = [
      { label: 'raw node-pty, same process, no emulator', runs: [] },
      { label: 'box, piped (no terminal): output log only', runs: [] },
      { label: 'box, tty: output log + server-side screen', runs: [] },
      { label: 'box, tty + one WebSocket viewer', runs: [] },
    ];
    // Interleaved rounds, so load from elsewhere on the machine falls on every row alike.
    for (let round = 0; round < ROUNDS; round++) {
      rows[0]!.runs.push(await rawNodePty(file));
      rows[1]!.runs.push(await viaManager(box.manager, `piped-${round}`, false));
      rows[2]!.runs.push(await viaManager(box.manager, `tty-${round}`, true));
      rows[3]!.runs.push(await viaManager(box.manager, `viewer-${round}`, true, await connectPeer(server)));
    }
    const mbps = (msTaken: number) => (bytes / 1e6 / (msTaken / 1000)).toFixed(1);
    const body = rows.map(({ label, runs }) => {
      const exit = median(runs.map((r) => r.exitMs));
      const screen = runs[0]!.screenMs === undefined ? undefined : median(runs.map((r) => r.screenMs!));
      const viewers = runs.flatMap((r) => (r.viewer ? [`${(r.viewer.bytes / 1e6).toFixed(0)} MB, close ${r.viewer.code}`] : []));
      return [
        label,
        `${mbps(exit)}`,
        screen === undefined ? '—' : mbps(screen),
        (median(runs.map((r) => r.mainCpuMs)) / (bytes / 1e6)).toFixed(2),
        (median(runs.map((r) => r.cpuMs)) / (bytes / 1e6)).toFixed(2),
        ms(Math.max(...runs.map((r) => r.loopMax))),
        ms(Math.max(...runs.map((r) => r.loopCpuMax))),
        ms(Math.max(...runs.map((r) => r.loopP99))),
        viewers.join('; ') || '—',
      ];
    });
    return [
      `TTY output throughput — cat of ${(bytes / 1e6).toFixed(0)} MB of coloured source-like text (${ROUNDS} rounds, interleaved, medians), agents: ${box.mode}; load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs, Node ${process.version}`,
      '',
      table(
        [
          'path',
          'MB/s to exit',
          'MB/s to screen current',
          'API main thread CPU ms/MB',
          'API all threads CPU ms/MB',
          'loop gap max',
          'main thread CPU in a gap, max',
          'gap p99',
          'viewer got',
        ],
        [...body, ['nothing running (2 s): the probe’s floor', '—', '—', '—', '—', ms(idle.loopMax), ms(idle.loopCpuMax), ms(idle.loopP99), '—']],
      ),
      '',
      'CPU: the main thread is the one running the API’s event loop (the kernel’s count for it); all threads add the terminal emulators’ worker, GC helpers and the thread pool. Event loop: a 1 ms timer chain; a gap is the wall time between two of its turns (1 ms of it the timer’s own), "main thread CPU in a gap" the CPU the main thread used meanwhile, which separates holding the loop from waiting for a core. Worst round shown. The viewer is a separate process on loopback.',
    ].join('\n');
  } finally {
    server.close();
    await box.close();
    removeDir(dir);
  }
}

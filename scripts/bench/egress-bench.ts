// Egress benchmark: CONNECT set-up and bulk throughput on loopback, direct and through the proxy programme (both relays), from client and server processes of their own.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { ControlClient } from '../../management-api/src/egress/control-client.js';
import { newProxyCredential } from '../../management-api/src/egress/agent-credential.js';
import type { TunnelRelay } from '../../management-api/src/egress/tunnel.js';
import { installedLauncher } from '../../management-api/src/sandbox/launcher-binary.js';
import { CLOCK_TICKS, readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { repoPath } from '../cli/repo-path.js';
import { BULK_BYTES, type FetchResult, type FetchTarget } from './egress-bench-peer.js';
import { median, ms, quantile, table } from './stats.js';

/** Connections per path for set-up times; AGENTBOX_BENCH_EGRESS_CONNECTS overrides. */
const CONNECTS = Number(process.env['AGENTBOX_BENCH_EGRESS_CONNECTS'] ?? 1_000);
/** Bulk transfers per path; AGENTBOX_BENCH_EGRESS_RUNS overrides. */
const BULK_RUNS = Number(process.env['AGENTBOX_BENCH_EGRESS_RUNS'] ?? 5);
/** The pass marks of the issue. */
const SETUP_TARGET_MS = 2;
const THROUGHPUT_TARGET = 0.8;

const peerScript = (): string => repoPath('dist/scripts/bench/egress-bench-peer.js');

/** The first line a child prints, parsed as JSON; rejects when it exits first. */
function firstLine<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before answering`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as T));
  });
}

/** One client process: `connects` set-ups to `idle`, then the bulk read when asked. */
function fetchIn(idle: FetchTarget, connects: number, bulk?: FetchTarget): Promise<FetchResult> {
  const child = spawn(process.execPath, [peerScript(), 'fetch', JSON.stringify({ idle, connects, bulk })], { stdio: ['ignore', 'pipe', 'inherit'] });
  return firstLine<FetchResult>(child, 'the benchmark client');
}

/** CPU seconds `pid` has used so far (NaN once it is gone). */
const cpuOf = (pid: number): number => {
  const s = readStat(pid);
  return s ? s.ownTicks / CLOCK_TICKS : NaN;
};

/**
 * The baseline relay (egress-ideal-relay.c) compiled with the host compiler and started towards
 * `upstream`: what a third process and a second loopback hop cost at the least.
 */
async function startIdealRelay(upstream: number, dir: string): Promise<{ port: number; cpu: () => number; close: () => void }> {
  const binary = path.join(dir, 'egress-ideal-relay');
  execFileSync(process.env['CC'] || 'cc', ['-O2', '-o', binary, repoPath('scripts/bench/egress-ideal-relay.c')], { stdio: 'inherit' });
  const relay = spawn(binary, [String(upstream)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const close = (): void => void relay.kill('SIGTERM');
  try {
    const { port } = await firstLine<{ port: number }>(relay, 'the baseline relay');
    return { port, cpu: () => cpuOf(relay.pid!), close };
  } catch (err) {
    close();
    throw err;
  }
}

/**
 * The launcher's forwarder as an agent in bubblewrap has it (agentbox-forward.c): listening on a
 * loopback port, passing each connection to the proxy's sandbox socket. Run here in the host's
 * network namespace (loopback costs the same), its launcher confined to the system directories
 * and asleep in place of an agent. Undefined where the launcher is not built.
 */
async function startForwarder(socket: string): Promise<{ port: number; cpu: () => number; close: () => void } | undefined> {
  const launcher = installedLauncher();
  if (!existsSync(launcher)) return undefined;
  const port = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  const system = ['/usr', '/bin', '/lib', '/lib64'].flatMap((dir) => ['--ro', dir]);
  // Its own process group: the forwarder is killed with it (outside a PID namespace nothing else ends it).
  const child = spawn(launcher, [...system, '--forward', `${port}=${socket}`, '--', '/bin/sleep', '3600'], { stdio: 'ignore', detached: true });
  const close = (): void => void (child.pid && process.kill(-child.pid, 'SIGKILL'));
  for (let i = 0; ; i++) {
    const listening = await new Promise<boolean>((resolve) =>
      net
        .connect(port, '127.0.0.1')
        .once('connect', function (this: net.Socket) {
          this.destroy();
          resolve(true);
        })
        .once('error', () => resolve(false)),
    );
    if (listening) break;
    if (i === 100) {
      close();
      throw new Error(`the launcher's forwarder did not listen on 127.0.0.1:${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const children = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
  return { port, cpu: () => children.reduce((sum, pid) => sum + cpuOf(pid), 0), close };
}

/** A proxy programme with the given relay, a credential registered; CPU seconds it has used so far on demand. */
async function startProxy(
  relay: TunnelRelay,
  allowPorts: number[],
): Promise<{ via: { port: number; auth: string }; sandboxSocket: string; cpu: () => number; close: () => void }> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), `agentbox-egress-bench-${relay}-`));
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  const manifest = path.join(dir, 'agentbox.toml');
  writeFileSync(manifest, `[sandbox.egress]\nallow_domains = ["127.0.0.1"]\nallow_ports = [${allowPorts.join(', ')}]\n`);
  const { key } = await ensureApiKey(paths.apiKeyFile, createLogger({ level: 'silent' }));
  const env = { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: dir, AGENTBOX_MANIFEST: manifest, AGENTBOX_EGRESS_PORT: '0', AGENTBOX_EGRESS_RELAY: relay };
  const proxy = spawn(process.execPath, [repoPath('dist/box/egress-proxy.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let client: ControlClient | undefined;
  const close = (): void => {
    client?.close();
    proxy.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      proxy.once('exit', (code) => reject(new Error(`the egress proxy exited (${code}) before its control socket answered`)));
      client = new ControlClient({
        socketPath: paths.egressControlSocket,
        apiKey: key,
        onConnect: async (_c, reply) => resolve(reply.port),
        onDecision: () => undefined,
        onStateChange: () => undefined,
        timing: { retryMinMs: 20, retryMaxMs: 100 },
      });
      client.start();
    });
    const { secret, hash } = newProxyCredential();
    await client!.call({ op: 'register', agent: 'agt_bench', hash });
    const cpu = (): number => cpuOf(proxy.pid!);
    return { via: { port, auth: Buffer.from(`agt_bench:${secret}`).toString('base64') }, sandboxSocket: paths.sandboxEgressSocket, cpu, close };
  } catch (err) {
    close();
    throw err;
  }
}

interface PathFigures {
  setup: number[];
  rates: number[];
  /** CPU seconds of the proxy per GiB relayed, one per bulk run. */
  proxyCpu: number[];
  /** CPU seconds of the receiving client per GiB, one per bulk run: a relay can move cost onto the agent. */
  clientCpu: number[];
}

/** Run the egress benchmark and return the report text. */
export async function runEgressBench(): Promise<string> {
  const server = spawn(process.execPath, [peerScript(), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stops: Array<() => void> = [() => server.kill('SIGTERM')];
  try {
    const ports = await firstLine<{ idle: number; bulk: number }>(server, 'the benchmark server');
    const proxies = { buffer: await startProxy('buffer', [ports.idle, ports.bulk]), pipe: await startProxy('pipe', [ports.idle, ports.bulk]) };
    stops.push(proxies.buffer.close, proxies.pipe.close);
    const binDir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-egress-bench-bin-'));
    stops.push(() => rmSync(binDir, { recursive: true, force: true }));
    const ideal = await startIdealRelay(ports.bulk, binDir);
    stops.push(ideal.close);
    const paths: Array<{ name: string; via?: FetchTarget['via']; cpu?: () => number; bulkPort?: number }> = [
      { name: 'direct', via: undefined, cpu: undefined },
      { name: 'baseline: C read/write relay, 1 MiB buffer, no CONNECT', via: undefined, cpu: ideal.cpu, bulkPort: ideal.port },
      { name: 'proxy, stream pipe relay (before)', via: proxies.pipe.via, cpu: proxies.pipe.cpu },
      { name: 'proxy, reused-buffer relay (now)', via: proxies.buffer.via, cpu: proxies.buffer.cpu },
    ];
    // The path of an agent in bubblewrap: its forwarder, then the proxy's sandbox socket.
    const forwarder = await startForwarder(proxies.buffer.sandboxSocket);
    if (forwarder) {
      stops.push(forwarder.close);
      paths.push({
        name: 'forwarder + proxy (an agent in bubblewrap)',
        via: { port: forwarder.port, auth: proxies.buffer.via.auth },
        cpu: () => proxies.buffer.cpu() + forwarder.cpu(),
      });
    }
    const figures = new Map<string, PathFigures>(paths.map((p) => [p.name, { setup: [], rates: [], proxyCpu: [], clientCpu: [] }]));
    // Warm every path (JIT in the proxies, first connections) before measuring.
    for (const p of paths) if (!p.bulkPort) await fetchIn({ port: ports.idle, ...(p.via ? { via: p.via } : {}) }, 50);
    for (let run = 0; run < BULK_RUNS; run++) {
      // Rotate the order so load from elsewhere on the machine falls on every path alike.
      for (let i = 0; i < paths.length; i++) {
        const p = paths[(run + i) % paths.length]!;
        const f = figures.get(p.name)!;
        const via = p.via ? { via: p.via } : {};
        // The baseline relay has no CONNECT and one upstream: it is measured for bulk only.
        if (!p.bulkPort) f.setup.push(...(await fetchIn({ port: ports.idle, ...via }, Math.ceil(CONNECTS / BULK_RUNS))).setup);
        const before = p.cpu?.() ?? 0;
        const bulk = await fetchIn({ port: ports.idle, ...via }, 0, { port: p.bulkPort ?? ports.bulk, ...via });
        f.rates.push(bulk.rate!);
        f.clientCpu.push((bulk.cpuMs! / 1000) * ((1024 * 1024 * 1024) / BULK_BYTES));
        if (p.cpu) f.proxyCpu.push(((p.cpu() - before) * 1024 * 1024 * 1024) / BULK_BYTES);
      }
    }
    const direct = figures.get('direct')!;
    const mb = (r: number): string => `${(r / 1024 / 1024).toFixed(0)} MiB/s`;
    const rows = paths.map((p) => {
      const f = figures.get(p.name)!;
      const best = Math.max(...f.rates) / Math.max(...direct.rates);
      const mid = median(f.rates) / median(direct.rates);
      const relayed = p.name !== 'direct';
      const pass = p.via ? (quantile(f.setup, 0.5) <= SETUP_TARGET_MS && best >= THROUGHPUT_TARGET ? 'yes' : 'NO') : '';
      const setup = (q: number): string => (f.setup.length ? ms(quantile(f.setup, q)) : '–');
      return [
        p.name,
        setup(0.5),
        setup(0.95),
        `${mb(Math.max(...f.rates))}${relayed ? ` (${best.toFixed(2)}×)` : ''}`,
        `${mb(median(f.rates))}${relayed ? ` (${mid.toFixed(2)}×)` : ''}`,
        `${median(f.clientCpu).toFixed(2)} s`,
        p.cpu ? `${median(f.proxyCpu).toFixed(2)} s` : '',
        pass,
      ];
    });
    return [
      `egress: client and servers in processes of their own, the proxy programme (or the baseline C relay) in its own; ${CONNECTS} set-ups per path to a silent server, ${BULK_RUNS} × ${BULK_BYTES / 1024 / 1024} MiB read per path, paths interleaved; load average at start ${loadavg()[0]!.toFixed(2)} on ${(await import('node:os')).cpus().length} CPUs`,
      table(
        [
          'path',
          'set-up p50',
          'set-up p95',
          'bulk best',
          'bulk median',
          'client CPU per GiB',
          'relay CPU per GiB',
          `pass (set-up ≤ ${SETUP_TARGET_MS} ms, best ≥ ${THROUGHPUT_TARGET}×)`,
        ],
        rows,
      ),
    ].join('\n');
  } finally {
    for (const stop of stops) stop();
  }
}

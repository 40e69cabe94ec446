// API benchmarks: /ready against a bare fastify route serving the same JSON (autocannon, 50
// connections, side by side), one /metrics scrape, and the idle RSS of the API process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { repoPath } from '../cli/repo-path.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { median, ms, quantile, table } from './stats.js';

/** The part of autocannon's result this report uses (autocannon ships no types). */
interface CannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: { url: string; connections: number; duration: number }) => Promise<CannonResult>;

const CONNECTIONS = 50;
// Many short interleaved rounds rather than a few long ones: on a shared 2-CPU machine a single
// target's req/s swings by ±25 % from one 5-s window to the next, while the ratio of two
// back-to-back 2-s windows is far steadier, and its median over 10 rounds steadier still.
const DURATION_SEC = Number(process.env['AGENTBOX_BENCH_SECONDS'] || 2);
const ROUNDS = Number(process.env['AGENTBOX_BENCH_ROUNDS'] || 16);
const IDLE_SEC = Number(process.env['AGENTBOX_BENCH_IDLE_SECONDS'] || 60);
const AFTER_LOAD_IDLE_SEC = Number(process.env['AGENTBOX_BENCH_AFTER_LOAD_IDLE_SECONDS'] || 30);
const API_NODE_OPTIONS = process.env['AGENTBOX_BENCH_API_NODE_OPTIONS'] ?? '';
const WARMUP_SEC = Number(process.env['AGENTBOX_BENCH_WARMUP_SECONDS'] || 8);
const ALL_OFF = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';

// The bare server: the same fastify, one route, no hooks, no logger.
const BARE_SERVER = `
import Fastify from 'fastify';
const body = process.env.BENCH_BODY;
const app = Fastify();
app.get('/ready', (_req, reply) => { reply.type('application/json; charset=utf-8').send(body); });
await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ event: 'BareListening', port: app.server.address().port }));
process.on('SIGTERM', () => app.close());
`;

/** A spawned Node process of a benchmark. */
export interface Spawned {
  child: ChildProcess;
  line: (event: string) => Promise<Record<string, unknown>>;
  stop: () => Promise<void>;
}

/** Start a Node process whose stdout carries JSON event lines; `line` waits for one. */
export function spawnNode(args: string[], env: Record<string, string>): Spawned {
  // Through the launcher's --parent-death mode when it is built: the server gets SIGTERM when the
  // benchmark dies however it dies (a kill, not only its own cleanup), and never runs on holding its port.
  const launcher = repoPath('dist/native/agentbox-sandbox');
  const [command, argv] = existsSync(launcher) ? [launcher, ['--parent-death', '--', process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command, argv, { cwd: repoPath('.'), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const waiters: Array<() => void> = [];
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    for (const w of waiters.splice(0)) w();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    child,
    line: (event) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = out.split('\n').find((l) => l.includes(`"event":"${event}"`));
          if (found) {
            resolve(JSON.parse(found) as Record<string, unknown>);
          } else if (child.exitCode !== null) {
            reject(new Error(`process exited before ${event}:\n${out}`));
          } else {
            waiters.push(check);
          }
        };
        check();
        setTimeout(() => reject(new Error(`no ${event} within 20 s`)), 20_000).unref();
      }),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** User + system CPU seconds of a process so far (/proc/<pid>/stat, in clock ticks of 1/100 s). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // After the command name: state is field 3, utime field 14, stime field 15 (1-based).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident set size of a process in MB (/proc/<pid>/status VmRSS). */
export function rssMb(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));
const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Render the API's registry (default metrics, build info, HTTP and adapter series) 50 times. */
async function renderTimes(): Promise<number[]> {
  const { createMetrics } = await import('../../management-api/src/api-metrics.js');
  const { SLOTS } = await import('../../management-api/src/adapters/adapter.js');
  const m = createMetrics({ version: '0.0.0', imageHash: 'dev', manifestSha256: '0'.repeat(64) });
  for (const route of ['/ready', '/livez', '/health', '/v1/meta', '/v1/events']) {
    m.http.route('GET', route).record(200, 0.001);
  }
  for (const slot of SLOTS) {
    m.adapterDispatch.inc({ slot, impl: 'off', method: 'op', outcome: 'ok' });
    m.adapterDuration.observe({ slot, impl: 'off', method: 'op' }, 0.002);
    m.adapterHealth.set({ slot }, 1);
  }
  await m.registry.metrics();
  const samples: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await m.registry.metrics();
    samples.push(performance.now() - t0);
  }
  return samples;
}

/** Start the compiled API on the manifest in `root` and wait until /ready answers 200. */
export async function startApi(root: string): Promise<{ spawned: Spawned; apiUrl: string; metricsUrl: string; body: string }> {
  const spawned = spawnNode([repoPath('dist/box/management-api.js'), '--manifest', path.join(root, 'agentbox.toml')], {
    AGENTBOX_ROOT: root,
    AGENTBOX_API_PORT: '0',
    AGENTBOX_METRICS_PORT: '0',
    // V8 options for the API process only (for example --max-semi-space-size=2, which trades a
    // little throughput for a smaller young generation); the bare server runs with defaults.
    NODE_OPTIONS: API_NODE_OPTIONS,
  });
  try {
    const listening = await spawned.line('ApiListening');
    const apiUrl = String(listening['apiUrl']);
    let body = '';
    for (let i = 0; i < 100; i++) {
      const res = await fetch(`${apiUrl}/ready`);
      body = await res.text();
      if (res.status === 200) break;
      await sleep(50);
    }
    if (!body.includes('"ready":true')) throw new Error(`the API did not become ready: ${body}`);
    return { spawned, apiUrl, metricsUrl: String(listening['metricsUrl']), body };
  } catch (err) {
    // The caller never sees the process of a start that failed: end it here, or it outlives the benchmark.
    await spawned.stop();
    throw err;
  }
}

/** Run the API benchmarks against the compiled server (`npm run build` first) and return the report. */
export async function runApiBench(): Promise<string> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const loadBefore = loadAverage();
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-api-bench-'));
  const servers: Spawned[] = [];
  try {
    const paths = runtimePaths({ AGENTBOX_ROOT: root });
    for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
    writeFileSync(paths.sealFile, '');
    writeFileSync(path.join(root, 'agentbox.toml'), ALL_OFF);
    const api = await startApi(root);
    servers.push(api.spawned);
    const bare = spawnNode(['--input-type=module', '-e', BARE_SERVER], { BENCH_BODY: api.body });
    servers.push(bare);
    const bareUrl = `http://127.0.0.1:${String((await bare.line('BareListening'))['port'])}`;
    // Both servers idle side by side before the load, as a box does between bursts. In that
    // minute V8's memory reducer runs full collections in a process that allocates at all (the
    // API's timers do, the bare server does not): it gives back the young generation start-up
    // grew, hence the two RSS readings, and is what once left the API's nextTick megamorphic
    // (boot/tick-shape-pin.ts).
    await sleep(2_000);
    const rssSoon = rssMb(api.spawned.child.pid!);
    await sleep(Math.max(0, IDLE_SEC - 2) * 1000);
    const rssSettled = rssMb(api.spawned.child.pid!);

    const targets = [
      { name: 'bare fastify route, same JSON', url: `${bareUrl}/ready`, pid: bare.child.pid! },
      { name: 'API /ready', url: `${api.apiUrl}/ready`, pid: api.spawned.child.pid! },
    ];
    const results = new Map<string, CannonResult[]>(targets.map((t) => [t.name, []]));
    // CPU time the server spent per request: far less sensitive than req/s to other load on the machine.
    const cpuPerRequest = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    // Warm-up: under load the API's request path takes several seconds to reach its steady state
    // (measured: ~20 µs of CPU per request in the first 3 s, ~14 µs from the third 3-s round on).
    for (const t of targets) await autocannon({ url: t.url, connections: CONNECTIONS, duration: WARMUP_SEC });
    // Interleaved rounds, so every target sees the same machine state, in alternating order
    // (bare then API, API then bare, …): measured here, whichever server runs second after a
    // switch does up to 15 % better, and alternating cancels that.
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
        const before = cpuSeconds(t.pid);
        const r = await autocannon({ url: t.url, connections: CONNECTIONS, duration: DURATION_SEC });
        cpuPerRequest.get(t.name)!.push(((cpuSeconds(t.pid) - before) * 1e6) / r.requests.total);
        results.get(t.name)!.push(r);
      }
    }
    // Medians over rounds, and the ratio taken per round (bare and API ran back to back), so a
    // burst of load elsewhere on the machine skews one round, not the result.
    const bareRounds = results.get(targets[0]!.name)!;
    const rows = targets.map((t) => {
      const rs = results.get(t.name)!;
      const ratios = rs.map((r, i) => r.requests.average / bareRounds[i]!.requests.average);
      const cpu = median(cpuPerRequest.get(t.name)!);
      const bareCpu = median(cpuPerRequest.get(targets[0]!.name)!);
      const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`;
      return [
        t.name,
        median(rs.map((r) => r.requests.average)).toFixed(0),
        median(ratios).toFixed(2),
        spread,
        `${cpu.toFixed(1)} µs`,
        (bareCpu / cpu).toFixed(2),
        `${median(rs.map((r) => r.latency.p50))} ms`,
        `${median(rs.map((r) => r.latency.p99))} ms`,
        `${Math.max(...rs.map((r) => r.latency.p99))} ms`,
        String(rs.reduce((sum, r) => sum + r.non2xx + r.errors, 0)),
      ];
    });

    // Scraped once the load is over, as Prometheus would between bursts; each scrape is paired
    // with a /livez round trip, so HTTP and scheduling cost can be told apart from rendering.
    await sleep(1_000);
    const scrapes: number[] = [];
    const livez: number[] = [];
    const timed = async (url: string): Promise<number> => {
      const t0 = performance.now();
      await (await fetch(url)).text();
      return performance.now() - t0;
    };
    await timed(api.metricsUrl); // opens the connections
    await timed(`${api.apiUrl}/livez`);
    for (let i = 0; i < 20; i++) {
      scrapes.push(await timed(api.metricsUrl));
      livez.push(await timed(`${api.apiUrl}/livez`));
    }
    const render = await renderTimes();
    // A box that was busy and then idles: the API makes one full collection once it has been
    // quiet for 10-20 s (observability/idle-compaction.ts), so read its RSS after that.
    const rssAfterLoad = rssMb(api.spawned.child.pid!);
    await sleep(AFTER_LOAD_IDLE_SEC * 1000);
    const rssIdleAfterLoad = rssMb(api.spawned.child.pid!);

    return [
      `API benchmark — autocannon, ${CONNECTIONS} connections, ${WARMUP_SEC} s warm-up then ${ROUNDS} interleaved rounds of ${DURATION_SEC} s per target (medians), 127.0.0.1, Node ${process.version}${API_NODE_OPTIONS ? `, API NODE_OPTIONS=${API_NODE_OPTIONS}` : ''}, load average before: ${loadBefore}, after: ${loadAverage()}`,
      '',
      table(
        [
          'target',
          'req/s (median)',
          'vs bare (median of rounds)',
          'vs bare (range over rounds)',
          'server CPU per request',
          'vs bare by CPU',
          'p50',
          'p99 (median)',
          'p99 (worst round)',
          'non-2xx/errors',
        ],
        rows,
      ),
      '',
      table(
        ['measure', 'value', 'target'],
        [
          ['/metrics render in process (API registry), median of 50', ms(median(render)), '≤ 5 ms'],
          ['/metrics render in process, p95 of 50', ms(quantile(render, 0.95)), ''],
          ['/metrics scrape over HTTP, median of 20', ms(median(scrapes)), '≤ 2 ms'],
          ['/livez over HTTP (same moments), median of 20', ms(median(livez)), ''],
          ['API RSS 2 s after ready', `${rssSoon.toFixed(1)} MB`, ''],
          [`API idle RSS, ${IDLE_SEC} s after ready`, `${rssSettled.toFixed(1)} MB`, '≤ 80 MB'],
          ['API RSS right after the load', `${rssAfterLoad.toFixed(1)} MB`, ''],
          [`API idle RSS, ${AFTER_LOAD_IDLE_SEC} s after the load`, `${rssIdleAfterLoad.toFixed(1)} MB`, '≤ 80 MB'],
        ],
      ),
    ].join('\n');
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    rmSync(root, { recursive: true, force: true });
  }
}

// Run directly: node dist/scripts/bench/api-bench.js
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'))) {
  process.stdout.write(`${await runApiBench()}\n`);
}

// Transparent egress against a proxy-aware client, side by side from inside one real bubblewrap agent:
// set-up to the first echoed byte and bulk throughput, both through the real proxy and forwarder.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { newProxyCredential } from '../../management-api/src/egress/agent-credential.js';
import { AgentSandbox } from '../../management-api/src/sandbox/agent-sandbox.js';
import { ControlClient } from '../../management-api/src/egress/control-client.js';
import { systemResolver } from '../../management-api/src/egress/decision.js';
import { runEgressProxy } from '../../management-api/src/egress/proxy-main.js';
import { launcherReady } from '../../management-api/src/sandbox/namespace-sandbox.js';
import { repoPath } from '../cli/repo-path.js';
import type { AgentPlan, AgentResult, PathResult } from './egress-transparent-peer.js';
import { TRANSPARENT_BULK_BYTES } from './egress-transparent-peer.js';
import { median, ms, quantile, table } from './stats.js';

const CONNECTS = Number(process.env['AGENTBOX_BENCH_EGRESS_CONNECTS'] ?? 500);
const BULK_RUNS = Number(process.env['AGENTBOX_BENCH_EGRESS_RUNS'] ?? 5);
const SETUP_TARGET_MS = 2;
const THROUGHPUT_TARGET = 0.9;
/** The name the agent asks for; the proxy (and only it) resolves it to the servers' loopback. */
const NAME = 'bench.agentbox.test';

const peer = (): string => repoPath('dist/scripts/bench/egress-transparent-peer.js');

function firstLine<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d));
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before answering: ${err.trim()}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as T));
  });
}

/** Run the benchmark and return its report. */
export async function runEgressTransparentBench(): Promise<string> {
  const stops: Array<() => unknown> = [];
  try {
    const server = spawn(process.execPath, [peer(), 'serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
    stops.push(() => server.kill('SIGTERM'));
    const ports = await firstLine<{ echo: number; bulk: number }>(server, 'the benchmark servers');

    const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-transparent-bench-'));
    stops.push(() => rmSync(dir, { recursive: true, force: true }));
    // As root, agents run as a uid of their own, which must reach their directories.
    chmodSync(dir, 0o711);
    const paths = runtimePaths({ AGENTBOX_ROOT: dir });
    const manifest = path.join(dir, 'agentbox.toml');
    writeFileSync(
      manifest,
      `[sandbox]\nnamespaces = "required"\n[sandbox.egress]\nallow_domains = ["${NAME}"]\nallow_ports = [${ports.echo}, ${ports.bulk}]\ntransparent = true\n`,
    );
    const logger = createLogger({ level: 'silent' });
    const { key } = await ensureApiKey(paths.apiKeyFile, logger);
    const resolve = async (name: string): Promise<string[]> => (name === NAME ? ['127.0.0.1'] : systemResolver(name));
    const proxy = await runEgressProxy({ AGENTBOX_ROOT: dir, AGENTBOX_MANIFEST: manifest, AGENTBOX_EGRESS_PORT: '0' }, logger, resolve);
    stops.push(() => proxy.close());
    const { secret, hash } = newProxyCredential();
    const control = await new Promise<{ client: ControlClient; port: number }>((ok) => {
      const client: ControlClient = new ControlClient({
        socketPath: paths.egressControlSocket,
        apiKey: key,
        onConnect: async (_c, reply): Promise<void> => ok({ client, port: reply.port }),
        onDecision: () => undefined,
        onStateChange: () => undefined,
        timing: { retryMinMs: 20, retryMaxMs: 100 },
      });
      client.start();
    });
    stops.push(() => control.client.close());
    await control.client.call({ op: 'register', agent: 'agt_bench', hash });

    const limits = { memory: '2g', cpu_seconds: 3600, processes: 128, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };
    const sandbox = new AgentSandbox({
      enabled: true,
      namespaces: 'required',
      limits,
      egressPort: () => control.port,
      apiPort: () => undefined,
      paths,
      egressAllowPorts: [ports.echo, ports.bulk],
    });
    const capability = await sandbox.start();
    stops.push(() => sandbox.close());
    if (!capability.enforceable || !sandbox.status().namespaces.active)
      throw new Error(`transparent egress bench: bubblewrap cannot run agents here (${capability.missing ?? sandbox.status().namespaces.reason})`);
    const cwd = path.join(paths.workspaceDir, 'bench');
    mkdirSync(cwd, { recursive: true });
    const plan: AgentPlan = {
      name: NAME,
      echo: ports.echo,
      bulk: ports.bulk,
      proxy: { port: control.port, auth: Buffer.from(`agt_bench:${secret}`).toString('base64') },
      connects: CONNECTS,
      bulkRuns: BULK_RUNS,
    };
    const confined = await sandbox.confine({
      id: 'agt_bench',
      name: 'bench',
      command: process.execPath,
      args: [peer(), 'agent', JSON.stringify(plan)],
      cwd,
      workspace: paths.workspaceDir,
    });
    stops.push(() => confined.release());
    const proxyUrl = `http://agt_bench:${secret}@127.0.0.1:${control.port}`;
    const agent = spawn(confined.command, confined.args, {
      cwd,
      env: { PATH: '/usr/bin:/bin', ...confined.env, HTTPS_PROXY: proxyUrl, HTTP_PROXY: proxyUrl },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      ...confined.ids,
    });
    stops.push(() => agent.exitCode === null && agent.pid && process.kill(-agent.pid, 'SIGKILL'));
    await launcherReady(agent.stdio[3] as NodeJS.ReadableStream);
    const result = await firstLine<AgentResult>(agent, 'the agent');

    const aware = result.proxyAware;
    const mb = (r: number): string => `${(r / 1024 / 1024).toFixed(0)} MiB/s`;
    const row = (label: string, f: PathResult, ratio?: number): string[] => [
      label,
      ms(median(f.setup)),
      ms(quantile(f.setup, 0.95)),
      mb(median(f.rates)),
      ratio === undefined ? '—' : `${ratio.toFixed(2)}×`,
    ];
    const ratio = median(result.transparent.rates) / median(aware.rates);
    const setupOverhead = median(result.transparent.setup) - median(aware.setup);
    const pass = median(result.transparent.setup) <= SETUP_TARGET_MS && ratio >= THROUGHPUT_TARGET;
    return [
      `Transparent egress vs a proxy-aware client, both from inside one bubblewrap agent through the forwarder and the proxy: ${CONNECTS} set-ups each (connect, name lookup where the client resolves, CONNECT where it is proxy-aware, to the first echoed byte), ${BULK_RUNS} × ${TRANSPARENT_BULK_BYTES / 1024 / 1024} MiB bulk reads each, interleaved; load average at start ${loadavg()[0]!.toFixed(2)}`,
      '',
      table(
        ['client', 'set-up p50', 'set-up p95', 'bulk median', 'vs proxy-aware'],
        [row('proxy-aware (CONNECT through HTTPS_PROXY)', aware), row('ignores the proxy variables (DNS + connect by name)', result.transparent, ratio)],
      ),
      '',
      `Target: transparent set-up ≤ ${SETUP_TARGET_MS} ms p50 (${ms(median(result.transparent.setup))}, ${setupOverhead >= 0 ? '+' : ''}${ms(setupOverhead)} against proxy-aware), throughput ≥ ${THROUGHPUT_TARGET}× (${ratio.toFixed(2)}×): ${pass ? 'met' : 'NOT met'}.`,
    ].join('\n');
  } finally {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => undefined);
  }
}

// Egress benchmark: the proxy programme (a real process) against direct connections on loopback, side by side:
// CONNECT set-up time and bulk throughput through a tunnel.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { ControlClient } from '../../management-api/src/sandbox/egress-control-client.js';
import { newProxyCredential } from '../../management-api/src/sandbox/agent-proxy-credential.js';
import { repoPath } from '../cli/repo-path.js';
import { ms, quantile, table } from './stats.js';

/** Connections per side for set-up times; AGENTBOX_BENCH_EGRESS_CONNECTS overrides. */
const CONNECTS = Number(process.env['AGENTBOX_BENCH_EGRESS_CONNECTS'] ?? 1_000);
/** Bytes per bulk transfer, and transfers per side. */
const BULK_BYTES = 256 * 1024 * 1024;
const BULK_RUNS = 3;
/** The pass marks of the issue. */
const SETUP_TARGET_MS = 2;
const THROUGHPUT_TARGET = 0.8;

/** A server that stays silent (set-up) and one that sends BULK_BYTES on connect (bulk). */
async function servers(): Promise<{ idle: number; bulk: number; close: () => void }> {
  const chunk = Buffer.alloc(1024 * 1024, 7);
  const idle = net.createServer((s) => s.on('error', () => undefined));
  const bulk = net.createServer((s) => {
    s.on('error', () => undefined);
    let sent = 0;
    const pump = (): void => {
      while (sent < BULK_BYTES) {
        sent += chunk.length;
        if (!s.write(chunk)) return void s.once('drain', pump);
      }
      s.end();
    };
    pump();
  });
  await Promise.all([idle, bulk].map((srv) => new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))));
  return { idle: (idle.address() as net.AddressInfo).port, bulk: (bulk.address() as net.AddressInfo).port, close: () => (idle.close(), bulk.close()) };
}

/** A connected socket to `port`, directly or through a CONNECT tunnel; resolves with the time it took. */
function open(port: number, via?: { port: number; auth: string }): Promise<{ socket: net.Socket; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const s = net.connect(via ? via.port : port, '127.0.0.1');
    s.setNoDelay(true);
    s.once('error', reject);
    if (!via) return void s.once('connect', () => resolve({ socket: s, ms: performance.now() - t0 }));
    s.once('connect', () => s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nProxy-Authorization: Basic ${via.auth}\r\n\r\n`));
    let head = '';
    const onData = (d: Buffer): void => {
      head += d.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.off('data', onData);
      // Paused until the caller listens: a flowing socket with no 'data' listener drops what arrives.
      s.pause();
      if (!head.startsWith('HTTP/1.1 200')) return reject(new Error(`proxy answered ${head.split('\r\n')[0]}`));
      const rest = Buffer.from(head.slice(end + 4), 'latin1');
      if (rest.length) s.unshift(rest);
      resolve({ socket: s, ms: performance.now() - t0 });
    };
    s.on('data', onData);
  });
}

/** Read everything the bulk server sends; resolves to bytes per second. */
async function drain(port: number, via?: { port: number; auth: string }): Promise<number> {
  const { socket } = await open(port, via);
  const t0 = performance.now();
  let bytes = 0;
  socket.on('data', (d: Buffer) => (bytes += d.length));
  socket.resume();
  await new Promise((r) => socket.once('close', r));
  if (bytes < BULK_BYTES) throw new Error(`only ${bytes} of ${BULK_BYTES} bytes arrived`);
  return bytes / ((performance.now() - t0) / 1000);
}

/** Run the egress benchmark and return the report text. */
export async function runEgressBench(): Promise<string> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-egress-bench-'));
  const srv = await servers();
  const paths = runtimePaths({ AGENTBOX_ROOT: dir });
  const manifest = path.join(dir, 'agentbox.toml');
  writeFileSync(manifest, `[sandbox.egress]\nallow_domains = ["127.0.0.1"]\nallow_ports = [${srv.idle}, ${srv.bulk}]\n`);
  const { key } = await ensureApiKey(paths.apiKeyFile, createLogger({ level: 'silent' }));
  const proxy = spawn(process.execPath, [repoPath('dist/management-api/src/sandbox/egress-proxy-cli.js')], { env: { PATH: process.env['PATH'] ?? '', AGENTBOX_ROOT: dir, AGENTBOX_MANIFEST: manifest, AGENTBOX_EGRESS_PORT: '0' }, stdio: ['ignore', 'ignore', 'inherit'] });
  let client: ControlClient | undefined;
  try {
    const { secret, hash } = newProxyCredential();
    const connected = new Promise<number>((resolve, reject) => {
      proxy.once('exit', (code) => reject(new Error(`the egress proxy exited (${code}) before its control socket answered`)));
      client = new ControlClient({ socketPath: paths.egressControlSocket, apiKey: key, onConnect: async (_c, reply) => resolve(reply.port), onDecision: () => undefined, onStateChange: () => undefined, timing: { retryMinMs: 20, retryMaxMs: 100 } });
      client.start();
    });
    const proxyPort = await connected;
    await client!.call({ op: 'register', agent: 'agt_bench', hash });
    const via = { port: proxyPort, auth: Buffer.from(`agt_bench:${secret}`).toString('base64') };

    const setup = async (through?: typeof via): Promise<number[]> => {
      const times: number[] = [];
      for (let i = 0; i < CONNECTS; i++) {
        const { socket, ms: t } = await open(srv.idle, through);
        times.push(t);
        socket.destroy();
      }
      return times;
    };
    // Warm both paths (JIT, first connections) before measuring; alternate so load hits both alike.
    await setup(), await setup(via);
    const [direct, proxied] = [await setup(), await setup(via)];
    const rates = { direct: [] as number[], proxied: [] as number[] };
    for (let i = 0; i < BULK_RUNS; i++) {
      rates.direct.push(await drain(srv.bulk));
      rates.proxied.push(await drain(srv.bulk, via));
    }
    const best = (r: number[]) => Math.max(...r);
    const ratio = best(rates.proxied) / best(rates.direct);
    const mb = (r: number) => `${(r / 1024 / 1024).toFixed(0)} MiB/s`;
    return [
      `egress: the proxy programme (its own process) on 127.0.0.1, ${CONNECTS} connections per side to a silent server, then ${BULK_RUNS} × ${BULK_BYTES / 1024 / 1024} MiB read per side (best run)`,
      table(
        ['path', 'set-up p50', 'set-up p95', 'bulk', `pass (set-up ≤ ${SETUP_TARGET_MS} ms, bulk ≥ ${THROUGHPUT_TARGET}×)`],
        [
          ['direct', ms(quantile(direct, 0.5)), ms(quantile(direct, 0.95)), mb(best(rates.direct)), ''],
          ['CONNECT through the proxy (auth, allowlist, checked address)', ms(quantile(proxied, 0.5)), ms(quantile(proxied, 0.95)), `${mb(best(rates.proxied))} (${ratio.toFixed(2)}×)`, quantile(proxied, 0.5) <= SETUP_TARGET_MS && ratio >= THROUGHPUT_TARGET ? 'yes' : 'NO'],
        ],
      ),
    ].join('\n');
  } finally {
    client?.close();
    proxy.kill('SIGTERM');
    srv.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

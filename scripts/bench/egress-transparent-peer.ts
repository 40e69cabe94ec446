// The two ends of the transparent-egress benchmark: `serve` (an echo and a bulk server on the host)
// and `agent` (run inside a bubblewrap agent: round trips and bulk reads through the proxy by
// CONNECT, as a proxy-aware client does, and by name alone, as one that ignores the variables does).
import dns from 'node:dns/promises';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { bulkServer, connectAnswered } from './egress-bench-peer.js';

/** Bytes the bulk server sends on each connection. */
export const TRANSPARENT_BULK_BYTES = 128 * 1024 * 1024;

/** What the agent is told: the name the proxy resolves, the servers' ports, the proxy's port and credential. */
export interface AgentPlan {
  name: string;
  echo: number;
  bulk: number;
  proxy: { port: number; auth: string };
  connects: number;
  bulkRuns: number;
}

/** One path's figures from inside the agent. */
export interface PathResult {
  /** Connect (name lookup included where the client resolves) to the first echoed byte, ms. */
  setup: number[];
  /** Bytes per second, one per bulk read. */
  rates: number[];
}

export interface AgentResult {
  proxyAware: PathResult;
  transparent: PathResult;
}

async function serve(): Promise<void> {
  const echo = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('error', () => undefined);
    s.pipe(s);
  });
  const bulk = bulkServer(TRANSPARENT_BULK_BYTES);
  await Promise.all([echo, bulk].map((srv) => new Promise<void>((r) => srv.listen(0, '127.0.0.1', r))));
  process.stdout.write(`${JSON.stringify({ echo: (echo.address() as net.AddressInfo).port, bulk: (bulk.address() as net.AddressInfo).port })}\n`);
}

/** A socket to `port` of `plan.name`: through a CONNECT of the proxy, or to the name directly. */
function open(plan: AgentPlan, port: number, viaProxy: boolean): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const connectTo = viaProxy ? Promise.resolve('127.0.0.1') : dns.lookup(plan.name, { family: 4 }).then((a) => a.address);
    connectTo.then((address) => {
      const s = net.connect(viaProxy ? plan.proxy.port : port, address);
      s.setNoDelay(true);
      s.once('error', reject);
      if (!viaProxy) return void s.once('connect', () => resolve(s));
      s.once('connect', () =>
        s.write(`CONNECT ${plan.name}:${port} HTTP/1.1\r\nHost: ${plan.name}:${port}\r\nProxy-Authorization: Basic ${plan.proxy.auth}\r\n\r\n`),
      );
      connectAnswered(s).then(() => resolve(s), reject);
    }, reject);
  });
}

/** Connect and see one byte come back from the echo server: the set-up as the client's first request sees it. */
async function roundTrip(plan: AgentPlan, viaProxy: boolean): Promise<number> {
  const t0 = performance.now();
  const s = await open(plan, plan.echo, viaProxy);
  await new Promise<void>((resolve, reject) => {
    s.once('data', () => resolve());
    s.once('error', reject);
    s.once('close', () => reject(new Error('closed before the echo')));
    s.resume();
    s.write('x');
  });
  const elapsed = performance.now() - t0;
  s.destroy();
  return elapsed;
}

async function bulkRead(plan: AgentPlan, viaProxy: boolean): Promise<number> {
  const s = await open(plan, plan.bulk, viaProxy);
  const t0 = performance.now();
  let bytes = 0;
  s.on('data', (d: Buffer) => (bytes += d.length));
  s.resume();
  await new Promise((r) => s.once('close', r));
  if (bytes < TRANSPARENT_BULK_BYTES) throw new Error(`only ${bytes} of ${TRANSPARENT_BULK_BYTES} bytes arrived`);
  return bytes / ((performance.now() - t0) / 1000);
}

/** Both paths, interleaved connection by connection so load from elsewhere falls on both alike. */
export async function agentRun(plan: AgentPlan): Promise<AgentResult> {
  const result: AgentResult = { proxyAware: { setup: [], rates: [] }, transparent: { setup: [], rates: [] } };
  // Warm both paths (the proxy's JIT, the forwarder's first names) before measuring.
  for (let i = 0; i < 20; i++) {
    await roundTrip(plan, true);
    await roundTrip(plan, false);
  }
  for (let i = 0; i < plan.connects; i++) {
    result.proxyAware.setup.push(await roundTrip(plan, true));
    result.transparent.setup.push(await roundTrip(plan, false));
  }
  for (let i = 0; i < plan.bulkRuns; i++) {
    result.proxyAware.rates.push(await bulkRead(plan, true));
    result.transparent.rates.push(await bulkRead(plan, false));
  }
  return result;
}

// `node egress-transparent-peer.js serve` or `node egress-transparent-peer.js agent '<json AgentPlan>'`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [role, arg] = process.argv.slice(2);
  if (role === 'serve') await serve();
  else if (role === 'agent') process.stdout.write(`${JSON.stringify(await agentRun(JSON.parse(arg ?? '{}') as AgentPlan))}\n`);
  else {
    process.stderr.write('usage: egress-transparent-peer.js serve | agent JSON\n');
    process.exitCode = 2;
  }
}

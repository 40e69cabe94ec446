// Client overhead: the typed client's call against a bare fetch of the same route, in process (no
// network: what the client itself costs) and over loopback HTTP (what a caller sees), interleaved.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Agentbox } from '../../management-api/src/client/agentbox.js';
import { ms, quantile, table } from './stats.js';

const CALLS = Number(process.env['AGENTBOX_BENCH_CLIENT_CALLS'] || 20_000);
const NET_CALLS = Number(process.env['AGENTBOX_BENCH_CLIENT_NET_CALLS'] || 3_000);
// A /v1/meta-sized answer (about 600 bytes), so parsing costs what it does for a real call.
const BODY = JSON.stringify({
  version: '0.1.0',
  imageHash: 'x'.repeat(64),
  manifestSha256: 'y'.repeat(64),
  identity: { npub: `npub1${'q'.repeat(58)}`, pubkey: 'a'.repeat(64), did: `did:nostr:${'a'.repeat(64)}` },
  adapters: { beads: 'local-sqlite', pods: 'local-fs', memory: 'off', events: 'local-jsonl', orchestrator: 'local-procmgr' },
  metrics: { url: 'http://127.0.0.1:9464/metrics' },
});
const HEADERS = { authorization: 'Bearer k' };

/** Per-call times (ms) of `a` and `b`, alternated call by call so load on the machine hits both alike. */
async function interleaved(n: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number[], number[]]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    let s = performance.now();
    await a();
    ta.push(performance.now() - s);
    s = performance.now();
    await b();
    tb.push(performance.now() - s);
  }
  return [ta, tb];
}

function row(what: string, bare: number[], client: number[]): string[] {
  const p50 = quantile(client, 0.5) - quantile(bare, 0.5);
  return [what, ms(quantile(bare, 0.5)), ms(quantile(client, 0.5)), `${(p50 * 1000).toFixed(1)} µs`, ms(quantile(bare, 0.99)), ms(quantile(client, 0.99))];
}

/** Run both comparisons; the figure that matters is the p50 difference. */
export async function runClientBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  // In process: a fetch that answers at once, so only the work around it differs.
  const local: typeof fetch = async () => new Response(BODY, { status: 200, headers: { 'content-type': 'application/json' } });
  const url = 'http://127.0.0.1:9';
  const inProcessClient = new Agentbox({ url, auth: { apiKey: 'k' }, fetch: local });
  const bareLocal = async () => (await local(`${url}/v1/meta`, { method: 'GET', headers: HEADERS })).json();
  await interleaved(2_000, bareLocal, () => inProcessClient.meta());
  const [bareIn, clientIn] = await interleaved(CALLS, bareLocal, () => inProcessClient.meta());

  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(BODY));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const netClient = new Agentbox({ url: base, auth: { apiKey: 'k' } });
    const bareNet = async () => (await fetch(`${base}/v1/meta`, { method: 'GET', headers: HEADERS })).json();
    await interleaved(500, bareNet, () => netClient.meta());
    const [bareN, clientN] = await interleaved(NET_CALLS, bareNet, () => netClient.meta());
    const figures = {
      inProcessOverheadP50Ms: quantile(clientIn, 0.5) - quantile(bareIn, 0.5),
      loopbackOverheadP50Ms: quantile(clientN, 0.5) - quantile(bareN, 0.5),
      inProcess: { bareP50: quantile(bareIn, 0.5), clientP50: quantile(clientIn, 0.5) },
      loopback: { bareP50: quantile(bareN, 0.5), clientP50: quantile(clientN, 0.5) },
    };
    const text = [
      `Client overhead: Agentbox.meta() vs a bare fetch + json() of GET /v1/meta (target: ≤ 0.1 ms p50); ${CALLS} in-process calls, ${NET_CALLS} over loopback, interleaved`,
      table(
        ['', 'bare p50', 'client p50', 'overhead p50', 'bare p99', 'client p99'],
        [row('in process (no network)', bareIn, clientIn), row('loopback HTTP', bareN, clientN)],
      ),
    ].join('\n');
    return { text, json: figures };
  } finally {
    server.close();
  }
}

// Mesh host under load: 1,000 simulated members register, then heartbeat with the interval
// compressed (every member once per interval, spread evenly), each request NIP-98 signed by the
// member's own key. Reports heartbeat latency (p50/p99), the host's CPU and RSS, beside a baseline
// of unauthenticated /livez requests sent at the same rate to the same process.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateSecretKey } from 'nostr-tools/pure';
import { BoxIdentity } from '../../management-api/src/mesh/identity.js';
import { nip98Header } from '../../management-api/src/mesh/nip98.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { cpuSeconds, rssMb, startApi } from './api-bench.js';
import { ms, quantile, table } from './stats.js';

const MEMBERS = Number(process.env['AGENTBOX_BENCH_MESH_MEMBERS'] || 1000);
/** The compressed heartbeat interval (a real mesh uses 30 s). */
const INTERVAL_SEC = Number(process.env['AGENTBOX_BENCH_MESH_INTERVAL_SEC'] || 5);
const ROUNDS = Number(process.env['AGENTBOX_BENCH_MESH_ROUNDS'] || 4);

interface Member {
  identity: BoxIdentity;
  heartbeatUrl: string;
}

const sleep = (msec: number) => new Promise((r) => setTimeout(r, msec));

interface Signed {
  url: string;
  body: string;
  authorization: string;
}

/** A request signed ahead of time: signing is the member's cost, not the host's, so it stays out of the timing. */
async function sign(url: string, identity: BoxIdentity, body: unknown): Promise<Signed> {
  const text = JSON.stringify(body);
  return { url, body: text, authorization: await nip98Header(identity, url, 'POST', text) };
}

async function send(request: Signed): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(request.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: request.authorization },
    body: request.body,
  });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

/**
 * One interval's worth of requests, spread evenly over it (an open loop: a slow answer does not
 * delay the next request), each timed from its send to its answer.
 */
async function paced(count: number, intervalMs: number, send: (i: number) => Promise<void>): Promise<number[]> {
  const latencies: number[] = [];
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const due = start + (i * intervalMs) / count;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const sent = performance.now();
    pending.push(
      send(i).then(() => {
        latencies.push(performance.now() - sent);
      }),
    );
  }
  await Promise.all(pending);
  return latencies;
}

/** Run the mesh host benchmark (`npm run build` first) and return the report. */
export async function runMeshBench(): Promise<string> {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-mesh-bench-'));
  const members: Member[] = Array.from({ length: MEMBERS }, () => ({ identity: new BoxIdentity(generateSecretKey()), heartbeatUrl: '' }));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  writeFileSync(paths.sealFile, '');
  const adapters = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';
  const allowed = members.map((m) => `"${m.identity.pubkey}"`).join(',\n  ');
  writeFileSync(
    path.join(root, 'agentbox.toml'),
    `${adapters}[mesh]\nmode = "host"\nheartbeat_interval_sec = ${INTERVAL_SEC}\nallowed_pubkeys = [\n  ${allowed}\n]\n`,
  );
  const api = await startApi(root);
  const pid = api.spawned.child.pid!;
  try {
    const capacity = { agents_running: 0, free_memory_bytes: 1 << 30 };
    const registerUrl = `${api.apiUrl}/v1/register`;
    const registrations = await Promise.all(
      members.map((m, i) =>
        sign(registerUrl, m.identity, {
          pubkey: m.identity.pubkey,
          image_hash: 'bench',
          manifest_sha256: '0'.repeat(64),
          adapters: {},
          contract_versions: {},
          api_endpoint: `http://10.0.0.${i % 250}:9090`,
          capacity,
        }),
      ),
    );
    const t0 = performance.now();
    const registerLatencies = await paced(MEMBERS, INTERVAL_SEC * 1000, async (i) => {
      const m = members[i]!;
      const r = await send(registrations[i]!);
      if (r.status !== 201) throw new Error(`register answered ${r.status}: ${JSON.stringify(r.json)}`);
      m.heartbeatUrl = String((r.json['endpoints'] as Record<string, string>)['heartbeat']);
    });
    const registerSec = (performance.now() - t0) / 1000;

    const heartbeat: number[] = [];
    let heartbeatCpu = 0;
    // Round 0 warms the host up (JIT, connections) and is not counted. Rounds run back to back,
    // so every member heartbeats once per interval (plus the time to sign the next round).
    for (let round = 0; round <= ROUNDS; round++) {
      const beats = await Promise.all(members.map((m) => sign(m.heartbeatUrl, m.identity, { health: { ready: true, status: 'ok' }, capacity })));
      const cpu0 = cpuSeconds(pid);
      const latencies = await paced(MEMBERS, INTERVAL_SEC * 1000, async (i) => {
        const r = await send(beats[i]!);
        if (r.status !== 200) throw new Error(`heartbeat answered ${r.status}: ${JSON.stringify(r.json)}`);
      });
      if (round === 0) continue;
      heartbeat.push(...latencies);
      heartbeatCpu += cpuSeconds(pid) - cpu0;
    }
    const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
    const listed = await fetch(`${api.apiUrl}/v1/mesh/members`, { headers: { authorization: `Bearer ${key}` } });
    const registered = ((await listed.json()) as { members: Array<{ state: string }> }).members.filter((m) => m.state === 'registered').length;
    // The baseline: unauthenticated /livez at the same rate, on the same process, once the members
    // have stopped (they are evicted later; nothing else runs meanwhile).
    const baselineCpu0 = cpuSeconds(pid);
    const baseline = await paced(MEMBERS * ROUNDS, INTERVAL_SEC * 1000 * ROUNDS, async () => {
      const res = await fetch(`${api.apiUrl}/livez`);
      await res.arrayBuffer();
    });
    const baselineCpu = cpuSeconds(pid) - baselineCpu0;
    const rate = MEMBERS / INTERVAL_SEC;
    return [
      `Mesh host: ${MEMBERS} members, heartbeat interval compressed to ${INTERVAL_SEC} s (${rate.toFixed(0)} signed requests/s), ${ROUNDS} rounds after one warm-up round, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, Node ${process.version}`,
      table(
        ['requests', 'p50', 'p99', 'max', 'host CPU / request', 'host CPU share'],
        [
          [
            'register (NIP-98)',
            ms(quantile(registerLatencies, 0.5)),
            ms(quantile(registerLatencies, 0.99)),
            ms(Math.max(...registerLatencies)),
            '-',
            `${registerSec.toFixed(1)} s for all`,
          ],
          [
            'heartbeat (NIP-98)',
            ms(quantile(heartbeat, 0.5)),
            ms(quantile(heartbeat, 0.99)),
            ms(Math.max(...heartbeat)),
            `${((heartbeatCpu * 1e6) / heartbeat.length).toFixed(0)} µs`,
            `${((heartbeatCpu / (ROUNDS * INTERVAL_SEC)) * 100).toFixed(0)} % of a core`,
          ],
          [
            'baseline /livez, same rate',
            ms(quantile(baseline, 0.5)),
            ms(quantile(baseline, 0.99)),
            ms(Math.max(...baseline)),
            `${((baselineCpu * 1e6) / baseline.length).toFixed(0)} µs`,
            `${((baselineCpu / (ROUNDS * INTERVAL_SEC)) * 100).toFixed(0)} % of a core`,
          ],
        ],
      ),
      `host RSS after the load: ${rssMb(pid).toFixed(1)} MB; members listed as registered: ${registered} of ${MEMBERS}; target p99 heartbeat ≤ 20 ms`,
    ].join('\n');
  } finally {
    await api.spawned.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

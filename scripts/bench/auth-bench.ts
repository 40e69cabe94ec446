// Authentication cost: the NIP-98 check (signature, window, URL, method, payload hash, replay
// cache, allowlist) beside the bearer-key check, per call in process and per request over HTTP.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { generateSecretKey } from 'nostr-tools/pure';
import { bearerVerifier } from '../../management-api/src/auth/bearer-auth.js';
import { BoxIdentity } from '../../management-api/src/mesh/identity.js';
import { Nip98Verifier, nip98Header, payloadHash } from '../../management-api/src/mesh/nip98.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { cpuSeconds, startApi } from './api-bench.js';
import { median, ms, quantile, table } from './stats.js';

const CALLS = Number(process.env['AGENTBOX_BENCH_AUTH_CALLS'] || 2000);
const REQUESTS = Number(process.env['AGENTBOX_BENCH_AUTH_REQUESTS'] || 400);
const ROUNDS = 4;
const BODY = JSON.stringify({ note: 'a small mutating request body', n: 1 });

interface Figures {
  samples: number[];
  cpuMicros?: number;
}

function row(name: string, f: Figures): string[] {
  return [name, ms(median(f.samples)), ms(quantile(f.samples, 0.99)), f.cpuMicros === undefined ? '-' : `${f.cpuMicros.toFixed(0)} µs`];
}

/** In process: the checks alone, with tokens signed beforehand (signing is the client's cost). */
async function inProcess(identity: BoxIdentity): Promise<{ bearer: Figures; nip98: Figures }> {
  const key = 'k'.repeat(43);
  const verifyBearer = bearerVerifier(key);
  const bearer: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    if (verifyBearer(`Bearer ${key}`) !== 'ok') throw new Error('bearer check refused the right key');
    bearer.push(performance.now() - t0);
  }
  const url = 'http://127.0.0.1:9090/v1/events';
  const verifier = new Nip98Verifier({ allowed: new Set([identity.pubkey]) });
  const tokens = await Promise.all(Array.from({ length: CALLS }, () => nip98Header(identity, url, 'POST', BODY)));
  const bodyHash = payloadHash(BODY);
  const nip98: number[] = [];
  for (const header of tokens) {
    const t0 = performance.now();
    const verdict = await verifier.check(header.slice('Nostr '.length), url, 'POST');
    if (!verdict.ok || !verifier.checkPayload(verdict.event, bodyHash, BODY.length).ok) throw new Error('NIP-98 check refused a valid token');
    nip98.push(performance.now() - t0);
  }
  return { bearer: { samples: bearer }, nip98: { samples: nip98 } };
}

/** Over HTTP against the compiled API: sequential GET /v1/meta, the two schemes in alternating rounds. */
async function overHttp(identity: BoxIdentity): Promise<{ bearer: Figures; nip98: Figures }> {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-auth-bench-'));
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  writeFileSync(paths.sealFile, '');
  const adapters = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';
  writeFileSync(path.join(root, 'agentbox.toml'), `${adapters}[mesh]\noperator_pubkeys = ["${identity.pubkey}"]\n`);
  const api = await startApi(root);
  try {
    const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
    const url = `${api.apiUrl}/v1/meta`;
    const pid = api.spawned.child.pid!;
    const out = { bearer: { samples: [] as number[], cpu: 0, n: 0 }, nip98: { samples: [] as number[], cpu: 0, n: 0 } };
    for (let round = 0; round < ROUNDS; round++) {
      for (const scheme of round % 2 === 0 ? (['bearer', 'nip98'] as const) : (['nip98', 'bearer'] as const)) {
        // Signed just before the round: every token is fresh and used once (the replay cache).
        const headers =
          scheme === 'bearer'
            ? Array.from({ length: REQUESTS }, () => `Bearer ${key}`)
            : await Promise.all(Array.from({ length: REQUESTS }, () => nip98Header(identity, url, 'GET')));
        const cpu0 = cpuSeconds(pid);
        for (const authorization of headers) {
          const t0 = performance.now();
          const res = await fetch(url, { headers: { authorization } });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${scheme} request answered ${res.status}`);
          out[scheme].samples.push(performance.now() - t0);
        }
        out[scheme].cpu += cpuSeconds(pid) - cpu0;
        out[scheme].n += REQUESTS;
      }
    }
    return {
      bearer: { samples: out.bearer.samples, cpuMicros: (out.bearer.cpu * 1e6) / out.bearer.n },
      nip98: { samples: out.nip98.samples, cpuMicros: (out.nip98.cpu * 1e6) / out.nip98.n },
    };
  } finally {
    await api.spawned.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** Run the authentication benchmark (`npm run build` first) and return the report. */
export async function runAuthBench(): Promise<string> {
  const identity = new BoxIdentity(generateSecretKey());
  const local = await inProcess(identity);
  const http = await overHttp(identity);
  const header = ['path', 'p50', 'p99', 'server CPU / request'];
  return [
    `Authentication: the check alone (${CALLS} calls each, tokens signed beforehand)`,
    table(header, [row('bearer key', local.bearer), row('NIP-98 (+ payload hash, replay cache)', local.nip98)]),
    '',
    `Over HTTP: GET /v1/meta on the compiled API, sequential, ${ROUNDS} alternating rounds of ${REQUESTS}`,
    table(header, [row('bearer key', http.bearer), row('NIP-98', http.nip98)]),
  ].join('\n');
}

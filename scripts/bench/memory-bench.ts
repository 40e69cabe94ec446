// Memory benchmark: local-ruvector and external-pg (PGlite + pgvector over the wire) against exact brute force,
// on a Gaussian-mixture set (clustered, like real embeddings) and on uniform random unit vectors (the worst case).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { pino } from 'pino';
import type { AdapterContext } from '../../management-api/src/adapters/adapter.js';
import type { MemoryAdapter } from '../../management-api/src/adapters/memory/memory-adapter.js';
import { LocalRuvectorMemory } from '../../management-api/src/adapters/memory/local-ruvector.js';
import { ExternalPgMemory } from '../../management-api/src/adapters/memory/external-pg.js';
import { normalized } from '../../management-api/src/adapters/memory/memory-input.js';
import { VectorMatrix } from '../../management-api/src/adapters/memory/vector-matrix.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { median, ms, quantile, table } from './stats.js';

const D = 384;
const QUERIES = 200;
const K = 10;

/** Deterministic xorshift32 in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

function gaussian(r: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
}

/**
 * `n` unit vectors from a mixture of 100 Gaussians: centre c (unit, random) plus N(0, σ²/d·I) with
 * σ = 1, so a point's cosine to its centre is about 0.7 and the 10 nearest neighbours of a query
 * lie in its own component — clustered like real embeddings, yet not trivially separable.
 */
export function gaussianMixture(n: number, seed: number, components = 100, sigma = 1): Float32Array[] {
  const r = rng(seed);
  const centres = Array.from({ length: components }, () => normalized(Float32Array.from({ length: D }, () => gaussian(r))));
  return Array.from({ length: n }, () => {
    const c = centres[Math.floor(r() * components)]!;
    return normalized(Float32Array.from(c, (x) => x + (sigma * gaussian(r)) / Math.sqrt(D)));
  });
}

/** `n` unit vectors drawn uniformly on the sphere (no structure at all: the hardest case for any index). */
export function uniformSphere(n: number, seed: number): Float32Array[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => normalized(Float32Array.from({ length: D }, () => gaussian(r))));
}

interface Row {
  store: string;
  data: string;
  n: number;
  insertPerSec: number;
  p50: number;
  p99: number;
  recall: number;
  note: string;
}

async function context(env: Record<string, string>, root: string, adapter: string): Promise<AdapterContext<'memory'>> {
  const toml =
    adapter === 'external-pg'
      ? `[adapters]\nmemory = "external-pg"\n[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:9/"\n[integrations.memory]\nconnection_env = "PGURL"\ndimension = ${D}\n`
      : `[adapters]\nmemory = "local-ruvector"\n[integrations.memory]\ndimension = ${D}\n`;
  const loaded = await loadManifestSource(toml, { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest) throw new Error(`bench manifest invalid: ${JSON.stringify(loaded.diagnostics)}`);
  return {
    slot: 'memory',
    settings: loaded.manifest.integrations.memory,
    paths: runtimePaths({ AGENTBOX_ROOT: root }),
    logger: pino({ level: 'silent' }),
    env,
  };
}

/** Store `data`, then time `QUERIES` searches and compare each answer with the exact top-10. */
async function measure(
  store: string,
  dataName: string,
  adapter: MemoryAdapter,
  data: Float32Array[],
  queries: Float32Array[],
  truth: string[][],
  afterLoad: () => Promise<string>,
): Promise<Row> {
  const namespace = 'bench';
  const t0 = performance.now();
  for (let i = 0; i < data.length; i++) await adapter.store(namespace, { id: `v${i}`, text: '', vector: data[i]! });
  const acked = performance.now() - t0;
  await adapter.search(namespace, { vector: queries[0]!, k: K });
  // Stored means searchable at once; "indexed" waits until the index holds everything (and is calibrated).
  const note = await afterLoad();
  const insertPerSec = data.length / ((performance.now() - t0) / 1000);
  const ackNote = `${(data.length / (acked / 1000)).toFixed(0)} stores/s acknowledged`;
  const times: number[] = [];
  let found = 0;
  for (let q = 0; q < queries.length; q++) {
    const t = performance.now();
    const hits = await adapter.search(namespace, { vector: queries[q]!, k: K });
    times.push(performance.now() - t);
    const expected = new Set(truth[q]);
    found += hits.filter((h) => expected.has(h.id)).length / K;
  }
  return {
    store,
    data: dataName,
    n: data.length,
    insertPerSec,
    p50: median(times),
    p99: quantile(times, 0.99),
    recall: found / queries.length,
    note: `${ackNote}; ${note}`,
  };
}

function exactBaseline(dataName: string, data: Float32Array[], queries: Float32Array[]): { row: Row; truth: string[][] } {
  const matrix = new VectorMatrix(D, data.length);
  const t0 = performance.now();
  data.forEach((v, i) => {
    matrix.set(`v${i}`, v);
  });
  const insertPerSec = data.length / ((performance.now() - t0) / 1000);
  const times: number[] = [];
  const truth = queries.map((q) => {
    const t = performance.now();
    const ids = matrix.topK(q, K).map((h) => h.id);
    times.push(performance.now() - t);
    return ids;
  });
  return {
    row: {
      store: 'exact brute force (JS scan, baseline)',
      data: dataName,
      n: data.length,
      insertPerSec,
      p50: median(times),
      p99: quantile(times, 0.99),
      recall: 1,
      note: 'ground truth',
    },
    truth,
  };
}

/** PGlite with pgvector, served on 127.0.0.1 (an ephemeral port) so `pg` connects as to any server. */
async function startPglite(): Promise<{ url: string; stop: () => Promise<void> }> {
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 8 });
  await server.start();
  const url = `postgres://bench:bench@${server.getServerConn()}/postgres`;
  return {
    url,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

/** Run the memory benchmarks and return the report. `AGENTBOX_BENCH_MEMORY_N` scales the set (default 100,000). */
export async function runMemoryBench(): Promise<string> {
  const n = Number(process.env['AGENTBOX_BENCH_MEMORY_N'] ?? 100_000);
  // PGlite is single-threaded WebAssembly: its HNSW inserts are far slower than a native server's.
  const pgN = Math.min(n, Number(process.env['AGENTBOX_BENCH_MEMORY_PG_N'] ?? 2_000));
  const rows: Row[] = [];
  const sets: Array<[string, Float32Array[]]> = [
    ['gaussian mixture', gaussianMixture(n + QUERIES, 7)],
    ['uniform random', uniformSphere(n + QUERIES, 11)],
  ];
  for (const [name, all] of sets) {
    const data = all.slice(0, n);
    const queries = all.slice(n);
    const exact = exactBaseline(name, data, queries);
    rows.push(exact.row);

    const root = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-bench-'));
    const local = new LocalRuvectorMemory(await context({}, root, 'local-ruvector'));
    await local.connect(AbortSignal.timeout(600_000));
    rows.push(
      await measure('local-ruvector', name, local, data, queries, exact.truth, async () => {
        await local.settled('bench');
        const s = local.stats('bench')!;
        return `answers ${s.mode === 'index' ? 'from the HNSW index' : 'exactly (recall guard)'}; calibrated index recall ${s.recall?.toFixed(3) ?? 'n/a'}`;
      }),
    );
    await local.close();
    rmSync(root, { recursive: true, force: true });

    const pgData = data.slice(0, pgN);
    const pgExact = pgN === n ? exact : exactBaseline(name, pgData, queries);
    if (pgN !== n) rows.push({ ...pgExact.row, store: `${pgExact.row.store}, pg subset` });
    const server = await startPglite();
    const pgRoot = mkdtempSync(path.join(tmpdir(), 'agentbox-memory-bench-'));
    const pgAdapter = new ExternalPgMemory(await context({ PGURL: server.url }, pgRoot, 'external-pg'));
    await pgAdapter.connect(AbortSignal.timeout(60_000));
    rows.push(
      await measure(
        'external-pg (PGlite + pgvector)',
        name,
        pgAdapter,
        pgData,
        queries,
        pgExact.truth,
        async () => `pgvector HNSW, ef_search 200${pgN < n ? `; n = ${pgN}: PGlite (WASM) inserts too slowly for ${n}` : ''}`,
      ),
    );
    await pgAdapter.close();
    await server.stop();
    rmSync(pgRoot, { recursive: true, force: true });
  }
  return [
    '## Memory',
    '',
    `${D}-dimensional unit vectors, ${QUERIES} queries from the same distribution, top-${K}; recall@10 against the exact scan of the same run. Target: p50 ≤ 5 ms with recall@10 ≥ 0.95 at 100k clustered.`,
    '',
    table(
      ['store', 'data', 'n', 'inserts/s (indexed)', 'search p50', 'search p99', 'recall@10', 'note'],
      rows.map((r) => [r.store, r.data, String(r.n), r.insertPerSec.toFixed(0), ms(r.p50), ms(r.p99), r.recall.toFixed(3), r.note]),
    ),
  ].join('\n');
}

// Run directly: `node dist/scripts/bench/memory-bench.js`.
if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) process.stdout.write(`${await runMemoryBench()}\n`);

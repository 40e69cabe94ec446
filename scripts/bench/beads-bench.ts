// Beads benchmark: claim+close on local-sqlite (direct and through the resolver), at both SQLite
// durability levels, side by side with raw better-sqlite3 inserts on the same kind of file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { pino } from 'pino';
import { LocalSqliteBeads } from '../../management-api/src/adapters/beads/local-sqlite.js';
import { AdapterResolver } from '../../management-api/src/adapters/resolver.js';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { createMetrics } from '../../management-api/src/api-metrics.js';
import { adapterTracer } from '../../management-api/src/observability/tracing.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { table } from './stats.js';

/** Beads per run; AGENTBOX_BENCH_BEADS overrides. */
const N = Number(process.env['AGENTBOX_BENCH_BEADS'] ?? 20_000);
/** The pass mark of the issue. */
const TARGET = 5_000;

type Ops = Pick<LocalSqliteBeads, 'create' | 'claim' | 'closeBead'>;

const rate = (n: number, ms: number) => Math.round((n / ms) * 1000);
const fmt = (n: number) => n.toLocaleString('en-US');

/** Create N beads, then claim and close each one, one call after the other (as one agent would). */
async function claimClose(ops: Ops): Promise<{ create: number; pairs: number }> {
  const ids: string[] = [];
  let t0 = performance.now();
  for (let i = 0; i < N; i++) ids.push((await ops.create({ title: `bench ${i}` })).id);
  const create = rate(N, performance.now() - t0);
  t0 = performance.now();
  for (const id of ids) {
    await ops.claim(id, 'bench-agent');
    await ops.closeBead(id, 'success');
  }
  return { create, pairs: rate(N, performance.now() - t0) };
}

async function direct(dir: string, synchronous: 'NORMAL' | 'FULL'): Promise<{ create: number; pairs: number }> {
  const beads = new LocalSqliteBeads({ file: path.join(dir, `direct-${synchronous}.sqlite`), synchronous });
  await beads.connect(AbortSignal.timeout(10_000));
  try {
    return await claimClose(beads);
  } finally {
    await beads.close();
  }
}

/** The same through AdapterResolver's dispatching operations (degraded check, metrics, tracing). */
async function viaResolver(dir: string): Promise<{ create: number; pairs: number }> {
  const loaded = await loadManifestSource('[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n', {
    targetArch: 'x86_64',
    env: {},
  });
  const resolver = await AdapterResolver.start({
    manifest: loaded.manifest!,
    paths: runtimePaths({ AGENTBOX_ROOT: path.join(dir, 'box') }),
    logger: pino({ level: 'silent' }),
    metrics: createMetrics({ version: 'bench', imageHash: 'bench', manifestSha256: loaded.sha256! }),
    tracer: adapterTracer('bench'),
    env: {},
    clock: () => new Date(),
  });
  try {
    return await claimClose(resolver.slot('beads'));
  } finally {
    await resolver.close();
  }
}

/** Raw better-sqlite3: one INSERT per transaction (what a create costs at the bottom), and N in one. */
function rawInserts(dir: string, synchronous: 'NORMAL' | 'FULL'): { single: number; batched: number } {
  const db = new BetterSqlite3(path.join(dir, `raw-${synchronous}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${synchronous}`);
  db.exec(
    'CREATE TABLE t (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, title TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL)',
  );
  const insert = db.prepare("INSERT INTO t (id, title, status, created_at) VALUES (?, ?, 'open', ?)");
  let t0 = performance.now();
  for (let i = 0; i < N; i++) insert.run(`single-${i}`, `bench ${i}`, new Date().toISOString());
  const single = rate(N, performance.now() - t0);
  t0 = performance.now();
  db.transaction(() => {
    for (let i = 0; i < N; i++) insert.run(`batch-${i}`, `bench ${i}`, new Date().toISOString());
  })();
  const batched = rate(N, performance.now() - t0);
  db.close();
  return { single, batched };
}

/** Run the beads benchmark and return the report text. */
export async function runBeadsBench(): Promise<string> {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-beads-bench-'));
  try {
    const normal = await direct(dir, 'NORMAL');
    const resolver = await viaResolver(dir);
    const full = await direct(dir, 'FULL');
    const rawNormal = rawInserts(dir, 'NORMAL');
    const rawFull = rawInserts(dir, 'FULL');
    const rows = [
      ['local-sqlite claim+close (direct)', 'NORMAL', fmt(normal.pairs), fmt(normal.create), normal.pairs >= TARGET ? 'yes' : 'NO'],
      ['local-sqlite claim+close (via resolver)', 'NORMAL', fmt(resolver.pairs), fmt(resolver.create), resolver.pairs >= TARGET ? 'yes' : 'NO'],
      ['local-sqlite claim+close (direct)', 'FULL', fmt(full.pairs), fmt(full.create), full.pairs >= TARGET ? 'yes' : 'NO'],
      ['raw better-sqlite3 INSERT, 1 per txn', 'NORMAL', '', fmt(rawNormal.single), ''],
      ['raw better-sqlite3 INSERT, 1 per txn', 'FULL', '', fmt(rawFull.single), ''],
      ['raw better-sqlite3 INSERT, all in 1 txn', 'NORMAL', '', fmt(rawNormal.batched), ''],
    ];
    return [
      `beads: ${fmt(N)} beads, each created, then claimed and closed with success, one call at a time (WAL; files under ${path.dirname(dir)})`,
      table(['operation', 'synchronous', 'claim+close pairs/s', 'creates or inserts/s', `≥ ${fmt(TARGET)} pairs/s`], rows),
      'NORMAL is what the adapter uses: a commit survives a crash of the process; FULL also fsyncs the WAL at every commit (power-loss durable).',
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

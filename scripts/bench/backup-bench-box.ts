// The box of the backup benchmark: a fresh root filled through the real adapter classes before the
// API starts — beads, the event log with its Merkle tree and signed checkpoint, memories with their
// HNSW index, pod resources — so the files are what a box that lived through that much work holds,
// made in minutes instead of the hours 1.2 million HTTP calls would take. The filling runs in a
// process of its own (this file, run directly), which has exited before the API opens the stores.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { AdapterContext } from '../../management-api/src/adapters/adapter.js';
import { BUSY_TIMEOUT_MS } from '../../management-api/src/adapters/beads/local-sqlite.js';
import { SqliteBeadsStore } from '../../management-api/src/adapters/beads/sqlite-beads-store.js';
import type { NewEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import { LOG_KEY_FILE, LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';
import type { TransparencySettings } from '../../management-api/src/adapters/events/transparent-log.js';
import { LocalRuvectorMemory } from '../../management-api/src/adapters/memory/local-ruvector.js';
import { FsPodStore } from '../../management-api/src/adapters/pods/fs-pod-store.js';
import { loadManifestSource, type NormalizedManifest } from '../../management-api/src/manifest/load-manifest.js';
import { type RuntimePaths, runtimePaths } from '../../management-api/src/runtime-paths.js';
import { gaussianMixture } from './memory-bench.js';

/** The manifest of the benchmark's box: every local store, no orchestrator (no agents to run). */
export const BOX_TOML = '[adapters]\nbeads = "local-sqlite"\npods = "local-fs"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "off"\n';

/** The memory namespace the box's memories are in (one, as one team's notes would be). */
export const NAMESPACE = 'notes';

/** Query vectors drawn from the memories' own distribution, for the load's searches. */
const QUERIES = 64;

/** How much the box holds. */
export interface BoxSizes {
  beads: number;
  events: number;
  memories: number;
  pods: number;
}

/** A filled root, ready for the API. */
export interface FilledBox {
  paths: RuntimePaths;
  /** Vectors near the stored ones (not stored), for searches. */
  queries: Float32Array[];
  /** Seconds each store took to fill. */
  seconds: Record<keyof BoxSizes, number>;
}

type Say = (line: string) => void;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** A progress reporter: says how far `what` is at every tenth of `total` (the fill takes minutes at full size). */
function ticker(what: string, total: number, say: Say): (done: number) => void {
  const t0 = performance.now();
  let next = total / 10;
  return (done) => {
    if (done < next && done < total) return;
    while (next <= done) next += total / 10;
    const seconds = (performance.now() - t0) / 1000;
    say(`${what}: ${fmt(done)} / ${fmt(total)} (${seconds.toFixed(0)} s, ${fmt(done / Math.max(seconds, 0.001))}/s)`);
  };
}

/** Seconds `fill` takes. */
async function timed(fill: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fill();
  return (performance.now() - t0) / 1000;
}

/**
 * One bead of the history: an epic every 50, its tasks after it; of the tasks, six in ten claimed
 * and closed with success, one closed with failure, one still claimed, two open — a box some way
 * into its work, so listings by status and the ready queue have all kinds to go through.
 */
function writeBead(store: SqliteBeadsStore, i: number, epic: string | undefined): string | undefined {
  if (i % 50 === 0) return store.create({ kind: 'epic', title: `Epic ${i / 50}: migrate module ${i % 997}`, body: 'Split into tasks by the planner.' }).id;
  const bead = store.create({
    title: `Task ${i}: fix the failing case ${i % 997} in package ${i % 31}`,
    body: `Reproduce with \`npm test -- --grep case-${i % 997}\`, find the cause, fix it, and add a regression test. Logged by the planner.`,
    ...(epic ? { parentId: epic } : {}),
  });
  const fate = i % 10;
  if (fate >= 8) return epic;
  store.claim(bead.id, `agent-${i % 24}`);
  if (fate <= 5) store.close(bead.id, 'success', 'tests pass');
  else if (fate === 6) store.close(bead.id, 'failure', 'could not reproduce');
  return epic;
}

/** Beads through the store the adapter uses, a thousand to a transaction (each create a savepoint in it) instead of one commit each. */
function fillBeads(file: string, n: number, say: Say): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const store = new SqliteBeadsStore({ file, clock: () => new Date(), busyTimeoutMs: BUSY_TIMEOUT_MS, synchronous: 'NORMAL' });
  const tick = ticker('beads', n, say);
  let epic: string | undefined;
  try {
    const chunk = store.db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) epic = writeBead(store, i, epic);
    });
    for (let from = 0; from < n; from += 1000) {
      chunk(from, Math.min(n, from + 1000));
      tick(Math.min(n, from + 1000));
    }
  } finally {
    store.dispose();
  }
}

const EVENT_KINDS = ['agent.spawned', 'agent.tool.started', 'agent.tool.finished', 'agent.output', 'bead.claimed', 'bead.closed'];

/** An event of an agent's working day: a few hundred bytes once stored, like the box's own. */
export function boxEvent(i: number): NewEvent {
  return {
    kind: EVENT_KINDS[i % EVENT_KINDS.length]!,
    source: `agent-${i % 24}`,
    data: { tool: 'shell', command: `npm test -- --grep case-${i % 997}`, exitCode: i % 13 === 0 ? 1 : 0, ms: (i * 7919) % 5000 },
  };
}

/**
 * The event log through LocalJsonlEvents with the server's transparency settings (its key file in
 * the secrets directory, its checkpoint interval), so the log has its Merkle tree and, from the
 * close, a signed checkpoint covering every event: the server opens it without rehashing anything.
 * Batches of 500 with four in flight, so group commit makes one fsync serve thousands of events.
 */
async function fillEvents(dir: string, transparency: TransparencySettings, n: number, say: Say): Promise<void> {
  const log = new LocalJsonlEvents({ dir, transparency });
  await log.connect(AbortSignal.timeout(60_000));
  const tick = ticker('events', n, say);
  let next = 0;
  let done = 0;
  try {
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < n) {
          const from = next;
          const to = Math.min(n, from + 500);
          next = to;
          await log.append(Array.from({ length: to - from }, (_, k) => boxEvent(from + k)));
          done += to - from;
          tick(done);
        }
      }),
    );
  } finally {
    await log.close();
  }
}

/**
 * Memories through LocalRuvectorMemory, with vectors from a Gaussian mixture (clustered like real
 * embeddings, memory-bench.ts), then waits until its HNSW index holds them all and has been
 * calibrated: the index file the server reopens is complete. Returns query vectors of the same mixture.
 */
async function fillMemories(context: AdapterContext<'memory'>, n: number, say: Say): Promise<Float32Array[]> {
  const all = gaussianMixture(n + QUERIES, 7);
  const memory = new LocalRuvectorMemory(context);
  await memory.connect(AbortSignal.timeout(600_000));
  const tick = ticker('memories', n, say);
  try {
    for (let i = 0; i < n; i++) {
      const topic = ['build', 'tests', 'deploy', 'review'][i % 4]!;
      await memory.store(NAMESPACE, {
        id: `m${i}`,
        text: `Note ${i} by agent-${i % 24} about ${topic}: the ${topic} step of package ${i % 31} needs the cache cleared first.`,
        metadata: { agent: `agent-${i % 24}`, topic },
        vector: all[i]!,
      });
      tick(i + 1);
    }
    say(`memories: waiting for the HNSW index to hold all ${fmt(n)}`);
    await memory.settled(NAMESPACE);
  } finally {
    await memory.close();
  }
  return all.slice(n);
}

/** Pod resources through the store local-fs uses: notes of ~2 KB in one container per agent. */
async function fillPods(dir: string, n: number, say: Say): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const store = new FsPodStore(dir);
  const tick = ticker('pod resources', n, say);
  for (let i = 0; i < n; i++) {
    const text = `# Notes ${i}\n\n${`Agent ${i % 24} found that package ${i % 31} builds once the cache is cleared.\n`.repeat(28)}`;
    await store.put(`/agents/agent-${i % 24}/notes-${i}.md`, Buffer.from(text), { contentType: 'text/markdown' });
    tick(i + 1);
  }
}

/** The manifest the box runs, validated as the server validates it. */
export async function boxManifest(): Promise<NormalizedManifest> {
  const loaded = await loadManifestSource(BOX_TOML, { targetArch: 'x86_64', env: {} });
  if (!loaded.manifest) throw new Error(`the benchmark's manifest is invalid: ${JSON.stringify(loaded.diagnostics)}`);
  return loaded.manifest;
}

/**
 * Fill a fresh root: the three mounts /ready checks, the seal (as the seal listener would write
 * it), the manifest beside the root for the API's --manifest and where `agentbox up` keeps its
 * copy (the backup copies that one), then every store.
 */
async function fillBox(root: string, sizes: BoxSizes, say: Say): Promise<FilledBox> {
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
  writeFileSync(paths.sealFile, '');
  writeFileSync(path.join(root, 'agentbox.toml'), BOX_TOML);
  mkdirSync(path.dirname(paths.manifestFile), { recursive: true });
  writeFileSync(paths.manifestFile, BOX_TOML);
  const manifest = await boxManifest();
  const transparency = { keyFile: path.join(paths.secretsDir, LOG_KEY_FILE), checkpointIntervalMs: manifest.audit.checkpoint_interval_sec * 1000 };
  const context: AdapterContext<'memory'> = { slot: 'memory', settings: manifest.integrations.memory, paths, logger: pino({ level: 'silent' }), env: {} };
  let queries: Float32Array[] = [];
  const seconds = {
    events: await timed(() => fillEvents(path.join(paths.stateDir, 'events'), transparency, sizes.events, say)),
    beads: await timed(() => fillBeads(path.join(paths.stateDir, 'beads', 'beads.sqlite'), sizes.beads, say)),
    memories: await timed(async () => (queries = await fillMemories(context, sizes.memories, say))),
    pods: await timed(() => fillPods(path.join(paths.stateDir, 'pods'), sizes.pods, say)),
  };
  return { paths, queries, seconds };
}

/** Bytes of the files under `dir` (0 when it is missing). */
export function treeBytes(dir: string): number {
  let total = 0;
  try {
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) total += statSync(path.join(e.parentPath, e.name)).size;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return total;
}

/** What the filling process writes to its report file when it is done. */
interface FillReport {
  queries: number[][];
  seconds: FilledBox['seconds'];
}

/**
 * Fill `root` in a child process, its progress on this process's stderr. A process of its own
 * because @ruvector/core keeps an index file locked until the process that opened it exits, even
 * once the adapter is closed and its worker ended: filled here, the API could not open the index
 * and would scan every vector on each search. The child's stdout goes to stderr too (the engine
 * prints to stdout), and its report to a file beside the root.
 */
export async function fillBoxApart(root: string, sizes: BoxSizes): Promise<FilledBox> {
  const reportFile = `${root}.fill.json`;
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), root, JSON.stringify(sizes), reportFile], { stdio: ['ignore', 2, 'inherit'] });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`filling the benchmark's box failed (exit ${code})`);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as FillReport;
  return { paths: runtimePaths({ AGENTBOX_ROOT: root }), queries: report.queries.map((q) => Float32Array.from(q)), seconds: report.seconds };
}

// The filling process: `node dist/scripts/bench/backup-bench-box.js ROOT SIZES-JSON REPORT-FILE`.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'))) {
  const [root, sizes, reportFile] = process.argv.slice(2);
  const box = await fillBox(root!, JSON.parse(sizes!) as BoxSizes, (line) => process.stderr.write(`backup bench: ${line}\n`));
  writeFileSync(reportFile!, JSON.stringify({ queries: box.queries.map((q) => Array.from(q)), seconds: box.seconds } satisfies FillReport));
}

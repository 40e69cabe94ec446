// Backup benchmark: the API's request latency under a steady open-loop load (200 req/s of beads,
// events, memory and /ready calls) on a box of 100,000 beads, 1,000,000 events and 100,000
// memories, without a backup and then with `agentbox backup` (the real CLI, its own process)
// copying the box the whole time, side by side in one run: in rounds (A, B, A, B, …), so that a
// drift of the machine over the run weighs on both sides alike, and the spread between rounds
// shows this machine's noise. Target: p99 with ≤ 2× p99 without (the rounds' samples pooled).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { BEADS_PAGER } from '../../management-api/src/adapters/beads/bead-rows.js';
import { MEMORY_PAGER } from '../../management-api/src/adapters/memory/memory-input.js';
import { DEFAULT_EXACT_BELOW } from '../../management-api/src/adapters/memory/memory-namespace.js';
import type { BackupIndex } from '../../management-api/src/backup/backup-format.js';
import { repoPath } from '../cli/repo-path.js';
import { type Spawned, startApi } from './api-bench.js';
import { type BoxSizes, boxEvent, fillBoxApart, NAMESPACE, treeBytes } from './backup-bench-box.js';
import { type Call, type Load, type Sample, type Summary, send, startLoad, summarize } from './backup-bench-load.js';
import { ms, table } from './stats.js';

const env = (name: string, fallback: number) => Number(process.env[`AGENTBOX_BENCH_BACKUP_${name}`] || fallback);

/** The box of the issue's target; each size can be made smaller for a quick run. */
const SIZES: BoxSizes = { beads: env('BEADS', 100_000), events: env('EVENTS', 1_000_000), memories: env('MEMORIES', 100_000), pods: env('PODS', 1_000) };
/** Requests a second, seconds of each phase, and rounds of a phase without and a phase with. */
const RATE = env('RATE', 200);
const PHASE_SEC = env('SECONDS', 20);
const ROUNDS = env('ROUNDS', 3);
/** Load before the first phase, not measured: the API's JIT and caches settle first. */
const WARMUP_SEC = env('WARMUP_SECONDS', 5);
/** How long the API may take to reopen the memory index (seconds per 10,000 vectors, in a worker) before the load starts. */
const INDEX_WAIT_SEC = env('INDEX_WAIT_SECONDS', 900);
/** The longest the first backup may take; past it the phase ends and the backup is stopped. */
const MAX_BACKUP_SEC = env('MAX_SECONDS', 1800);
/** p99 with the backup over p99 without: the issue's pass mark. */
const TARGET_RATIO = 2;

const MIB = 1024 * 1024;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const say = (line: string) => process.stderr.write(`backup bench: ${line}\n`);
const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const cli = () => repoPath('dist/scripts/cli/agentbox.js');

/** Deterministic xorshift32 in [0, 1), so every run sends the same requests. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/**
 * The request mix, ten to a cycle: bead pages from anywhere in the store (a random cursor) and of
 * the open ones, bead creates, event appends (each waits for its fsync), nearest-memory searches
 * by vector, memory pages, /ready. At 200 req/s each mutating route gets 40/s, under the API's
 * rate limit of 6,000 a minute per route and caller.
 */
function requestMix(sizes: BoxSizes, queries: Float32Array[]): (i: number) => Call {
  const r = rng(2024);
  const searches = queries.map((q) => JSON.stringify({ vector: Array.from(q, (x) => Number(x.toFixed(6))), k: 10 }));
  const beadPage = (extra: string): Call => ({
    route: `GET /v1/beads${extra ? '?status=open' : ''}`,
    method: 'GET',
    path: `/v1/beads?limit=20${extra}&cursor=${BEADS_PAGER.encodeCursor(Math.floor(r() * sizes.beads))}`,
  });
  const cycle: Array<(i: number) => Call> = [
    () => beadPage(''),
    (i) => ({
      route: 'POST /v1/beads',
      method: 'POST',
      path: '/v1/beads',
      body: JSON.stringify({ title: `Task from the load ${i}`, body: 'Made during the benchmark.' }),
    }),
    (i) => ({ route: 'POST /v1/events', method: 'POST', path: '/v1/events', body: JSON.stringify(boxEvent(i)) }),
    (i) => ({ route: 'POST /v1/memory/:ns/search', method: 'POST', path: `/v1/memory/${NAMESPACE}/search`, body: searches[i % searches.length]! }),
    () => beadPage('&status=open'),
    (i) => ({ route: 'POST /v1/beads', method: 'POST', path: '/v1/beads', body: JSON.stringify({ title: `Task from the load ${i}` }) }),
    (i) => ({ route: 'POST /v1/events', method: 'POST', path: '/v1/events', body: JSON.stringify(boxEvent(i)) }),
    (i) => ({ route: 'POST /v1/memory/:ns/search', method: 'POST', path: `/v1/memory/${NAMESPACE}/search`, body: searches[(i + 7) % searches.length]! }),
    () => ({
      route: 'GET /v1/memory/:ns',
      method: 'GET',
      path: `/v1/memory/${NAMESPACE}?limit=20&cursor=${MEMORY_PAGER.encodeCursor(Math.floor(r() * sizes.memories))}`,
    }),
    () => ({ route: 'GET /ready', method: 'GET', path: '/ready' }),
  ];
  // Without memories the memory calls have nothing to search; /ready stands in for them.
  const usable = sizes.memories > 0 ? cycle : cycle.map((c, k) => (k === 3 || k === 7 || k === 8 ? cycle[9]! : c));
  return (i) => usable[i % usable.length]!(i);
}

/** The event names the API has logged (its stdout is JSON lines), as they come. */
function loggedEvents(child: ChildProcess): Set<string> {
  const seen = new Set<string>();
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const name = /"event":"([A-Za-z]+)"/.exec(line)?.[1];
      if (name) seen.add(name);
    }
  });
  return seen;
}

/**
 * Wait until the API answers memory searches from its HNSW index: it reopens the index in a
 * worker at start (seconds per 10,000 vectors) and, until a calibration on the first search after
 * that passes, scans every vector on its main thread — tens of ms per search at 100,000, which
 * would be measured instead of the backup. One search every 2 s sets the calibration off.
 */
async function memoryIndexReady(search: () => Promise<unknown>, seen: Set<string>, memories: number): Promise<string> {
  if (memories < DEFAULT_EXACT_BELOW) return `exact scan (fewer than ${fmt(DEFAULT_EXACT_BELOW)} memories)`;
  const deadline = performance.now() + INDEX_WAIT_SEC * 1000;
  for (;;) {
    if (seen.has('MemoryIndexCalibrated')) return 'HNSW index';
    if (seen.has('MemoryRecallBelowTarget')) return "exact scan (the index's recall was below target)";
    if (seen.has('MemoryIndexFailed')) return 'exact scan (the index failed)';
    if (performance.now() > deadline) return `exact scan (the index was not ready after ${INDEX_WAIT_SEC} s)`;
    await search();
    await sleep(2_000);
  }
}

/** A backup's outcome. */
interface BackupRun {
  ok: boolean;
  dir: string;
  seconds: number;
  bytes: number;
  files: number;
  /** Events copied: the log up to its latest signed checkpoint. */
  events: number;
  error?: string;
}

/** A backup in progress: the CLI's process, and its outcome once it exits. */
interface RunningBackup {
  child: ChildProcess;
  done: Promise<BackupRun>;
}

/**
 * Run `agentbox backup --root ROOT --url URL --to DIR --json` as the operator would, in its own
 * process. --url: the bench's box is not one `agentbox up` registered, and a user's backup asks
 * its box to sign a checkpoint first, so each one here does too.
 */
function startBackup(root: string, apiUrl: string, dir: string): RunningBackup {
  const t0 = performance.now();
  const child = spawn(process.execPath, [cli(), 'backup', '--root', root, '--url', apiUrl, '--to', dir, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const done = new Promise<BackupRun>((resolve) => {
    child.on('error', (e) => resolve({ ok: false, dir, seconds: (performance.now() - t0) / 1000, bytes: 0, files: 0, events: 0, error: e.message }));
    child.on('close', (code, signal) => {
      const seconds = (performance.now() - t0) / 1000;
      if (code !== 0) {
        resolve({ ok: false, dir, seconds, bytes: 0, files: 0, events: 0, error: signal ? `stopped by ${signal}` : `exit ${code}: ${err.trim()}` });
        return;
      }
      try {
        // The index is the last line of stdout (--json).
        const index = JSON.parse(out.trim().split('\n').at(-1)!) as BackupIndex;
        const bytes = index.files.reduce((n, f) => n + f.bytes, 0);
        resolve({ ok: true, dir, seconds, bytes, files: index.files.length, events: index.eventLog?.events ?? 0 });
      } catch (e) {
        resolve({ ok: false, dir, seconds, bytes: 0, files: 0, events: 0, error: `its index on stdout did not parse: ${(e as Error).message}` });
      }
    });
  });
  return { child, done };
}

/** End a child of the benchmark: SIGTERM, SIGKILL after 5 s; resolves once it has exited. */
async function endChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** `agentbox backup verify DIR`: whether the backup made under load checks out whole. */
async function verifyBackup(dir: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [cli(), 'backup', 'verify', dir, '--json'], { maxBuffer: 64 * MIB });
    const report = JSON.parse(stdout) as { ok: boolean; problems: unknown[] };
    return report.ok ? 'ok' : `${report.problems.length} problems: ${JSON.stringify(report.problems[0])}`;
  } catch (err) {
    return `failed: ${(err as { stdout?: string }).stdout || (err as Error).message}`;
  }
}

/** Phase A (and the warm-up): the load alone for `seconds`. */
async function phaseWithout(start: () => Load, seconds = PHASE_SEC): Promise<Sample[]> {
  const load = start();
  await sleep(seconds * 1000);
  return load.stop();
}

/**
 * Phase B: the load with a backup running from its first to its last request. The phase lasts
 * PHASE_SEC or until the first backup has finished, whichever is later; each backup that ends
 * before then is followed by another, and one still running when the phase ends is stopped after
 * the load. Every backup is kept until the load has stopped: deleting one is a burst of I/O (with
 * discards) of its own that the phase would otherwise count against the backup. The last is
 * verified once the load is over.
 */
async function phaseWith(
  start: () => Load,
  root: string,
  apiUrl: string,
  work: string,
  running: Set<ChildProcess>,
  round: number,
): Promise<{ samples: Sample[]; runs: BackupRun[]; started: number }> {
  const runs: BackupRun[] = [];
  let started = 0;
  const load = start();
  const end = performance.now() + PHASE_SEC * 1000;
  let current: RunningBackup | undefined;
  try {
    for (let n = 1; ; n++) {
      current = startBackup(root, apiUrl, path.join(work, `backup-${round}-${n}`));
      started = n;
      running.add(current.child);
      say(`round ${round}, phase B: backup ${n} started`);
      // The first backup is waited for (up to MAX_BACKUP_SEC), the next ones only until the phase ends.
      const deadline = n === 1 ? performance.now() + MAX_BACKUP_SEC * 1000 : end;
      const finished = await Promise.race([current.done, sleep(Math.max(0, deadline - performance.now()), undefined, { ref: false })]);
      if (!finished) break;
      running.delete(current.child);
      current = undefined;
      runs.push(finished);
      say(`round ${round}, phase B: backup ${n} ${finished.ok ? `done in ${finished.seconds.toFixed(1)} s` : `failed: ${finished.error}`}`);
      if (!finished.ok || performance.now() >= end) break;
    }
    return { samples: await load.stop(), runs, started };
  } finally {
    await load.stop();
    if (current) await endChild(current.child);
  }
}

/** Latency figures of a phase as a table row. */
function phaseRow(name: string, backup: string, s: Summary): string[] {
  return [name, backup, fmt(s.requests), ms(s.p50), ms(s.p95), ms(s.p99), ms(s.max), fmt(s.errors), ms(s.lagP99)];
}

/** p99 of each route in each phase. */
function routeRows(phases: Array<[string, Sample[]]>): string[][] {
  const routes = [...new Set(phases.flatMap(([, samples]) => samples.map((s) => s.route)))].sort();
  return routes.map((route) => [route, ...phases.map(([, samples]) => ms(summarize(samples.filter((s) => s.route === route)).p99))]);
}

/** Run the backup benchmark against the compiled API and CLI (`npm run build` first) and return the report. */
export async function runBackupBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-backup-bench-'));
  const root = path.join(work, 'box');
  const children = new Set<ChildProcess>();
  let api: Spawned | undefined;
  let load: Load | undefined;
  try {
    say(
      `filling ${root}: ${fmt(SIZES.beads)} beads, ${fmt(SIZES.events)} events, ${fmt(SIZES.memories)} memories, ${fmt(SIZES.pods)} pod resources (AGENTBOX_BENCH_BACKUP_BEADS, _EVENTS, _MEMORIES, _PODS)`,
    );
    const box = await fillBoxApart(root, SIZES);
    const state = box.paths.stateDir;
    const disk = {
      beads: treeBytes(path.join(state, 'beads')),
      events: treeBytes(path.join(state, 'events')),
      memoryCatalog: treeBytes(path.join(state, 'memory')) - treeBytes(path.join(state, 'memory', 'index')),
      memoryIndex: treeBytes(path.join(state, 'memory', 'index')),
      pods: treeBytes(path.join(state, 'pods')),
    };

    say('starting the API');
    const t0 = performance.now();
    const started = await startApi(root);
    api = started.spawned;
    const seen = loggedEvents(api.child);
    const apiSeconds = (performance.now() - t0) / 1000;
    const key = readFileSync(box.paths.apiKeyFile, 'utf8').trim();
    const next = requestMix(SIZES, box.queries);
    // A search of the mix (the fourth call of each cycle) sets the index's calibration off.
    const probe = next(3);
    say(`API ready in ${apiSeconds.toFixed(1)} s; waiting for its memory index`);
    const t1 = performance.now();
    const memoryMode = await memoryIndexReady(() => send(started.apiUrl, key, probe, performance.now()), seen, SIZES.memories);
    const indexSeconds = (performance.now() - t1) / 1000;
    const apiUrl = started.apiUrl;
    const start = () => (load = startLoad(apiUrl, key, RATE, next));

    const loadBefore = loadAverage();
    say(`memory answers by ${memoryMode} (${indexSeconds.toFixed(0)} s); warming up for ${WARMUP_SEC} s at ${RATE} req/s`);
    await phaseWithout(start, WARMUP_SEC);
    const rounds: Array<{ a: Sample[]; b: Awaited<ReturnType<typeof phaseWith>> }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      say(`round ${round} of ${ROUNDS}, phase A: ${PHASE_SEC} s without a backup`);
      const a = await phaseWithout(start);
      say(`round ${round} of ${ROUNDS}, phase B: at least ${PHASE_SEC} s with a backup running`);
      rounds.push({ a, b: await phaseWith(start, root, apiUrl, work, children, round) });
    }
    const loadAfter = loadAverage();
    const runs = rounds.flatMap((r) => r.b.runs);
    const last = runs.filter((r) => r.ok).at(-1);
    say(last ? `verifying ${last.dir}` : 'no backup finished');
    const verified = last ? await verifyBackup(last.dir) : 'no backup finished';

    const a = rounds.flatMap((r) => r.a);
    const b = rounds.flatMap((r) => r.b.samples);
    const [sa, sb] = [summarize(a), summarize(b)];
    const ratio = sb.p99 / sa.p99;
    // Each round's phases summarised once: the table, the ratios and the JSON all read these.
    const summaries = rounds.map((r) => ({ A: summarize(r.a), B: summarize(r.b.samples) }));
    const perRound = summaries.map((x) => x.B.p99 / x.A.p99);
    const first = runs[0];
    const stateMib = (disk.beads + disk.events + disk.memoryCatalog + disk.memoryIndex + disk.pods) / MIB;
    const text = [
      `backup: a box of ${fmt(SIZES.beads)} beads, ${fmt(SIZES.events)} events, ${fmt(SIZES.memories)} memories (384-d, one namespace) and ${fmt(SIZES.pods)} pod resources; open-loop load of ${RATE} req/s; ${ROUNDS} rounds of ${PHASE_SEC} s without a backup then at least ${PHASE_SEC} s with one, after ${WARMUP_SEC} s of warm-up; Node ${process.version}; load average before the phases ${loadBefore}, after ${loadAfter}`,
      `state on disk ${stateMib.toFixed(0)} MiB: beads ${(disk.beads / MIB).toFixed(0)} MiB, event log ${(disk.events / MIB).toFixed(0)} MiB (with its tree), memory catalogue ${(disk.memoryCatalog / MIB).toFixed(0)} MiB + HNSW index ${(disk.memoryIndex / MIB).toFixed(0)} MiB (not backed up: rebuilt from the catalogue), pods ${(disk.pods / MIB).toFixed(1)} MiB; filled in ${Object.entries(
        box.seconds,
      )
        .map(([k, v]) => `${k} ${v.toFixed(0)} s`)
        .join(', ')}; API ready in ${apiSeconds.toFixed(1)} s, memory searches by ${memoryMode} after ${indexSeconds.toFixed(0)} s more`,
      'mix per 10 requests: 2 GET /v1/beads (a page from a random cursor, all and open), 2 POST /v1/beads, 2 POST /v1/events (each waits for its fsync), 2 POST /v1/memory/notes/search (k = 10), 1 GET /v1/memory/notes page, 1 GET /ready; latency from when each request was due',
      '',
      table(
        ['phase', 'backup', 'requests', 'p50', 'p95', 'p99', 'max', 'non-2xx/failed', 'send lag p99'],
        [
          ...rounds.flatMap((r, i) => [
            phaseRow(`A${i + 1}`, 'none', summaries[i]!.A),
            phaseRow(`B${i + 1}`, `${r.b.started} started, ${r.b.runs.filter((x) => x.ok).length} finished`, summaries[i]!.B),
          ]),
          phaseRow('A', `none (${ROUNDS} rounds pooled)`, sa),
          phaseRow('B', `running (${ROUNDS} rounds pooled)`, sb),
        ],
      ),
      '',
      table(
        ['route: p99 (pooled)', 'A', 'B'],
        routeRows([
          ['A', a],
          ['B', b],
        ]),
      ),
      '',
      table(
        ['backup during B', 'wall time', 'size', 'rate', 'files', 'events (to the signed checkpoint)', 'outcome'],
        runs.map((r) => [
          path.basename(r.dir).replace('backup-', 'round '),
          `${r.seconds.toFixed(1)} s`,
          `${(r.bytes / MIB).toFixed(0)} MiB`,
          `${(r.bytes / MIB / r.seconds).toFixed(0)} MiB/s`,
          fmt(r.files),
          fmt(r.events),
          r.ok ? 'ok' : (r.error ?? 'failed'),
        ]),
      ),
      `the last finished backup, verified after the load (agentbox backup verify): ${verified}`,
      '',
      `p99 with a backup running / without, the rounds pooled: ${ratio.toFixed(2)}×; each round: ${perRound.map((x) => `${x.toFixed(2)}×`).join(', ')}; target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'yes' : 'NO'}`,
    ].join('\n');
    return {
      text,
      json: {
        sizes: SIZES,
        rate: RATE,
        phaseSeconds: PHASE_SEC,
        loadAverage: { before: loadBefore, after: loadAfter },
        diskBytes: disk,
        fillSeconds: box.seconds,
        apiReadySeconds: apiSeconds,
        memorySearch: memoryMode,
        rounds: ROUNDS,
        phases: { A: sa, B: sb },
        perRound: rounds.map((r, i) => ({ round: i + 1, ...summaries[i]!, backupsStarted: r.b.started })),
        backups: runs.map(({ dir: _dir, ...r }) => r),
        firstBackupSeconds: first?.seconds,
        verified,
        p99Ratio: ratio,
        p99RatioPerRound: perRound,
        target: TARGET_RATIO,
        pass: ratio <= TARGET_RATIO,
      },
    };
  } finally {
    await (load as Load | undefined)?.stop();
    await Promise.all([...children].map(endChild));
    await api?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

// Run directly: node dist/scripts/bench/backup-bench.js
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/dist\//, '/dist/'))) {
  process.stdout.write(`${(await runBackupBench()).text}\n`);
}

// Several boxes on one machine: boot-to-ready of one box alone, side by side with a second and a
// third started together beside a first one already running (the case), and with three
// started at once; each with `npm start`'s defaults (the reference manifest, no port variables):
// a second and a third box find the first one's ports taken and move to free ones.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoPath } from '../cli/repo-path.js';
import { boxAt } from '../cli/box-registry.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { median, ms, quantile, table } from './stats.js';

const RUNS = Number(process.env['AGENTBOX_BENCH_BOXES_RUNS'] ?? 5);
const TOGETHER = 3;
/** The mark: each box of several ready within this multiple of one box alone. */
const TARGET_RATIO = 1.5;

interface Started {
  proc: ChildProcess;
  root: string;
  log: string;
}

/** `agentbox up --local` on the reference manifest under a root of its own, with the registry in `registry`. */
function up(work: string, name: string, registry: string): Started {
  const root = path.join(work, name);
  const log = path.join(work, `${name}.log`);
  const out = openSync(log, 'a');
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8', XDG_RUNTIME_DIR: registry };
  const proc = spawn(
    process.execPath,
    [repoPath('dist/scripts/cli/agentbox.js'), 'up', '--local', '--quiet', '--manifest', repoPath('agentbox.toml'), '--root', root],
    { cwd: work, env, stdio: ['ignore', out, out] },
  );
  return { proc, root, log };
}

/**
 * Milliseconds from `t0` to the first /ready 200 of the box under `s.root` (its API URL from the
 * registry). /ready is asked only once the box's seal file exists (checked every few ms, a stat):
 * /ready cannot be 200 before it, and asking a booting API every 10 ms, as this bench did, spent
 * CPU the boxes under test needed, the more so the more boxes start: the same build measured 1.76×
 * that way and 1.53× this way.
 */
async function readyAfter(s: Started, t0: number, registry: string): Promise<number> {
  const sealFile = runtimePaths({ AGENTBOX_ROOT: s.root }).sealFile;
  for (;;) {
    if (s.proc.exitCode !== null) throw new Error(`boxes bench: the box under ${s.root} exited (${s.proc.exitCode}); see ${s.log}`);
    if (performance.now() - t0 > 120_000) throw new Error(`boxes bench: the box under ${s.root} was not ready in 120 s; see ${s.log}`);
    const entry = existsSync(sealFile) ? boxAt(s.root, path.join(registry, 'agentbox')) : undefined;
    const status = entry
      ? await fetch(`${entry.apiUrl}/ready`).then(
          (r) => {
            void r.body?.cancel();
            return r.status;
          },
          () => 0,
        )
      : 0;
    if (status === 200) return performance.now() - t0;
    await sleep(5);
  }
}

/** Stop the boxes (SIGTERM to their `agentbox up`) and wait for each to exit. */
async function stop(started: Started[]): Promise<void> {
  await Promise.all(
    started.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.proc.exitCode !== null) return resolve();
          s.proc.once('exit', () => resolve());
          s.proc.kill('SIGTERM');
        }),
    ),
  );
}

/** `count` boxes started at once; each one's boot-to-ready. */
async function boot(work: string, tag: string, count: number, registry: string): Promise<number[]> {
  const t0 = performance.now();
  const started = Array.from({ length: count }, (_, i) => up(work, `${tag}-${i}`, registry));
  try {
    return await Promise.all(started.map((s) => readyAfter(s, t0, registry)));
  } finally {
    await stop(started);
  }
}

/** A first box up and ready, then `count` more started at once beside it; each one's boot-to-ready. */
async function bootBeside(work: string, tag: string, count: number, registry: string): Promise<number[]> {
  const first = up(work, `${tag}-first`, registry);
  try {
    await readyAfter(first, performance.now(), registry);
    return await boot(work, tag, count, registry);
  } finally {
    await stop([first]);
  }
}

/** Run the benchmark and return its report. */
export async function runBoxesBench(): Promise<string> {
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-boxes-bench-'));
  // A registry of the benchmark's own: `agentbox up` looks for the box's root there, and lists nothing else.
  const registry = path.join(work, 'xdg');
  try {
    const alone: number[] = [];
    const together: number[][] = Array.from({ length: TOGETHER }, () => []);
    const beside: number[][] = Array.from({ length: TOGETHER - 1 }, () => []);
    // Warm the build caches and the Nix evaluation once.
    await boot(work, 'warm', 1, registry);
    for (let run = 0; run < RUNS; run++) {
      alone.push(...(await boot(work, `alone-${run}`, 1, registry)));
      // Ordered by when each became ready: the first, second and third box of the run.
      const times = (await boot(work, `together-${run}`, TOGETHER, registry)).sort((a, b) => a - b);
      times.forEach((v, i) => {
        together[i]!.push(v);
      });
      (await bootBeside(work, `beside-${run}`, TOGETHER - 1, registry))
        .sort((a, b) => a - b)
        .forEach((v, i) => {
          beside[i]!.push(v);
        });
    }
    const base = median(alone);
    const ordinal = (i: number): string => ['first', 'second', 'third'][i] ?? `#${i + 1}`;
    const rows = [
      ['one box alone', ms(base), ms(quantile(alone, 0.9)), '1.00×'],
      ...beside.map((s, i) => [
        `beside a running box, ${TOGETHER - 1} together: the ${ordinal(i)} ready`,
        ms(median(s)),
        ms(quantile(s, 0.9)),
        `${(median(s) / base).toFixed(2)}×`,
      ]),
      ...together.map((s, i) => [`${TOGETHER} at once: the ${ordinal(i)} ready`, ms(median(s)), ms(quantile(s, 0.9)), `${(median(s) / base).toFixed(2)}×`]),
    ];
    const worst = Math.max(...beside.map((s) => median(s) / base));
    const worstAtOnce = Math.max(...together.map((s) => median(s) / base));
    return [
      `Boxes on one machine — \`agentbox up --local\` with npm start's defaults (reference manifest, no port variables), start → first /ready 200; ${RUNS} runs, alone, ${TOGETHER} at once and ${TOGETHER - 1} beside a running one interleaved; load average at start ${loadavg()[0]!.toFixed(2)}`,
      '',
      table(['boxes', 'median', 'p90', 'vs alone'], rows),
      '',
      `Target: a second and a third box started together (a first one running) each ready within ${TARGET_RATIO}× of one alone (the last ready: ${worst.toFixed(2)}×): ${worst <= TARGET_RATIO ? 'met' : 'NOT met'}. Three at once, the last ready: ${worstAtOnce.toFixed(2)}×.`,
    ].join('\n');
  } finally {
    if (!process.env['AGENTBOX_BENCH_KEEP']) rmSync(work, { recursive: true, force: true });
  }
}

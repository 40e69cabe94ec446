// Boot benchmarks: local-mode boot-to-ready (command start → first /ready 200), and seal latency
// (last required programme RUNNING → seal file) of the event listener side by side with a
// polling seal (`supervisorctl status` every 2 s) measured on the same boots.
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, existsSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createServer } from 'node:net';
import { repoPath } from '../cli/repo-path.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { boxFacts, type BoxFactsShape } from '../../management-api/src/box-facts.js';
import { median, ms, quantile, table } from './stats.js';

const run = promisify(execFile);

/** What the seal waits for in a box with no operator programmes: the box's required programmes and its one-shot stage B. */
const sealProgrammes = (() => {
  const box = Object.entries(boxFacts.programs.box as BoxFactsShape['programs']['box']).filter(([, p]) => !p.setting);
  return { required: box.filter(([, p]) => p.required).map(([n]) => n), oneshot: box.find(([, p]) => p.oneshot)?.[0] ?? '' };
})();

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A polling seal as a baseline: `supervisorctl status` every `intervalMs` until every required programme runs. */
async function pollingSeal(conf: string, required: string[], oneshot: string, sealFile: string, intervalMs: number, stop: () => boolean): Promise<void> {
  while (!stop()) {
    const out = await run('supervisorctl', ['-c', conf, 'status']).then(
      (r) => r.stdout,
      (e: { stdout?: string }) => e.stdout ?? '',
    );
    const state = new Map(
      out
        .split('\n')
        .map((l) => l.split(/\s+/))
        .map(([name, st]) => [name, st]),
    );
    // The same conditions as the listener: required programmes RUNNING, stage B exited.
    if (required.every((p) => state.get(p) === 'RUNNING') && state.get(oneshot) === 'EXITED') {
      writeFileSync(sealFile, `${JSON.stringify({ sealed_at: new Date().toISOString() })}\n`);
      return;
    }
    await sleep(intervalMs);
  }
}

/**
 * When the last condition of the seal was met (ms since epoch): the last "entered RUNNING state"
 * of a required programme in supervisord's log, or the moment stage B finished its work (the time
 * of its StageBCompleted event line). Stage B's exit is not the condition: the box is ready once
 * its work is done, and supervisord may take a loop turn to notice the exit.
 */
function sealConditionsMetAt(log: string, programs: string[]): number | undefined {
  let last: number | undefined;
  for (const line of log.split('\n')) {
    if (line.includes('"event":"StageBCompleted"')) {
      const at = (JSON.parse(line.slice(line.indexOf('{'))) as { time: number }).time;
      last = Math.max(last ?? at, at);
      continue;
    }
    const m = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d),(\d{3}) INFO success: (\S+) entered RUNNING state/.exec(line);
    if (!m || !programs.includes(m[3] ?? '')) continue;
    const at = new Date(`${m[1]!.replace(' ', 'T')}.${m[2]}`).getTime();
    last = Math.max(last ?? at, at);
  }
  return last;
}

/**
 * When a seal file was written (ms since epoch), from its `sealed_at`: the same clock, to the
 * millisecond, as the event times it is compared with (a file's mtime lags by up to a kernel tick).
 */
function sealTime(file: string): number {
  if (!existsSync(file)) return NaN;
  return Date.parse((JSON.parse(readFileSync(file, 'utf8')) as { sealed_at: string }).sealed_at);
}

interface BootSample {
  bootToReadyMs: number;
  sealLatencyMs: number;
  pollingSealLatencyMs: number;
}

async function bootOnce(manifest: string): Promise<BootSample> {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-bootbench-'));
  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const env = { ...process.env, AGENTBOX_API_PORT: String(apiPort), AGENTBOX_METRICS_PORT: String(metricsPort), AGENTBOX_EGRESS_PORT: '0', TZ: 'UTC' };
  const logFile = path.join(root, 'up.log');
  const { openSync } = await import('node:fs');
  const out = openSync(logFile, 'a');
  const t0 = performance.now();
  const child = spawn(process.execPath, [repoPath('dist/scripts/cli/agentbox.js'), 'up', '--local', '--manifest', manifest, '--root', path.join(root, 'box')], {
    env,
    stdio: ['ignore', out, out],
  });
  const paths = runtimePaths({ AGENTBOX_ROOT: path.join(root, 'box') });
  const conf = paths.supervisordConf;
  const seal = paths.sealFile;
  const pollSeal = path.join(root, 'polling-seal');
  let done = false;
  const poller = (async () => {
    while (!existsSync(paths.supervisorSocket) && !done) await sleep(5);
    await pollingSeal(conf, sealProgrammes.required, sealProgrammes.oneshot, pollSeal, 2000, () => done);
  })();
  let bootToReadyMs = NaN;
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${apiPort}/ready`).then(
      (r) => {
        void r.body?.cancel();
        return r.status;
      },
      () => 0,
    );
    if (status === 200) {
      bootToReadyMs = performance.now() - t0;
      break;
    }
    if (child.exitCode !== null || performance.now() - t0 > 60_000) throw new Error(`the box did not become ready; see ${logFile}`);
    await sleep(10);
  }
  // The seal is withdrawn when the box stops: read its time now.
  const sealedAt = sealTime(seal);
  await Promise.race([poller, sleep(5000)]);
  done = true;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const running = sealConditionsMetAt(readFileSync(logFile, 'utf8'), sealProgrammes.required);
  const polledAt = sealTime(pollSeal);
  return { bootToReadyMs, sealLatencyMs: running ? sealedAt - running : NaN, pollingSealLatencyMs: running ? polledAt - running : NaN };
}

/** Run the boot benchmarks on `manifest` (default: the reference agentbox.toml). */
export async function runBootBench(manifest = repoPath('agentbox.toml'), runs = Number(process.env['AGENTBOX_BENCH_BOOT_RUNS'] ?? 10)): Promise<string> {
  const samples: BootSample[] = [];
  for (let i = 0; i < runs; i++) samples.push(await bootOnce(manifest));
  const col = (k: keyof BootSample) => samples.map((s) => s[k]).filter((v) => Number.isFinite(v));
  return [
    '## Boot (local embedded mode)',
    '',
    table(
      ['measurement', 'median', 'p90', 'runs', 'target'],
      [
        [
          'boot-to-ready: `agentbox up --local` start → first /ready 200',
          ms(median(col('bootToReadyMs'))),
          ms(quantile(col('bootToReadyMs'), 0.9)),
          String(col('bootToReadyMs').length),
          '≤ 2.0 s median',
        ],
        [
          'seal latency, event listener (last condition met → seal file)',
          ms(median(col('sealLatencyMs'))),
          ms(quantile(col('sealLatencyMs'), 0.9)),
          String(col('sealLatencyMs').length),
          '≤ 100 ms',
        ],
        [
          'seal latency, polling baseline (`supervisorctl status` every 2 s)',
          ms(median(col('pollingSealLatencyMs'))),
          ms(quantile(col('pollingSealLatencyMs'), 0.9)),
          String(col('pollingSealLatencyMs').length),
          '',
        ],
      ],
    ),
    '',
    "Conditions (required programmes RUNNING, from supervisord's log; stage B done, from its StageBCompleted event) are",
    "timed in milliseconds, seal times from the seal files' sealed_at. The polling baseline checks supervisorctl status.",
  ].join('\n');
}

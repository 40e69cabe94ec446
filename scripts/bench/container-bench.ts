// Container benchmark: `docker-compose up -d` with the generated compose file → first /ready 200
// from the host through the published port, beside `agentbox up --local` → first /ready 200, on
// the same manifest in the same run, alternating, fresh state each time. A private engine runs the
// containers; the test image is built (or taken from the cache) and loaded first.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { repoPath } from '../cli/repo-path.js';
import { startPrivateEngine } from '../cli/image/private-engine.js';
import { median, ms, quantile, table } from './stats.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Poll /ready until 200; resolves to the moment (performance.now()) it answered. */
async function firstReady(url: string, limitMs: number, alive: () => boolean = () => true): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const status = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (r) => {
        void r.body?.cancel();
        return r.status;
      },
      () => 0,
    );
    if (status === 200) return performance.now();
    if (!alive() || performance.now() - t0 > limitMs) throw new Error(`${url} never answered 200`);
    await sleep(10);
  }
}

async function localOnce(manifest: string, root: string, apiPort: number, metricsPort: number): Promise<number> {
  const env = { ...process.env, AGENTBOX_API_PORT: String(apiPort), AGENTBOX_METRICS_PORT: String(metricsPort), AGENTBOX_EGRESS_PORT: '0' };
  const log = openSync(path.join(root, 'up-local.log'), 'a');
  const t0 = performance.now();
  const child = spawn(process.execPath, [repoPath('dist/scripts/cli/agentbox.js'), 'up', '--local', '--manifest', manifest, '--root', path.join(root, 'box')], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    return (await firstReady(`http://127.0.0.1:${apiPort}/ready`, 60_000, () => child.exitCode === null)) - t0;
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(path.join(root, 'box'), { recursive: true, force: true });
  }
}

/** Run the container benchmark (runs: AGENTBOX_BENCH_CONTAINER_RUNS, default 5). */
export async function runContainerBench(runs = Number(process.env['AGENTBOX_BENCH_CONTAINER_RUNS'] ?? 5)): Promise<string> {
  const engine = await startPrivateEngine();
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-containerbench-'));
  try {
    const [api, metrics] = [await freePort(), await freePort()];
    const manifest = path.join(dir, 'agentbox.toml');
    writeFileSync(manifest, `[agentbox]\nname = "bench"\n\n[api]\nport = ${api}\n\n[observability]\nmetrics_port = ${metrics}\n`);
    mkdirSync(path.join(dir, 'workspace'));
    chownSync(path.join(dir, 'workspace'), boxFacts.image.uid, boxFacts.image.gid);
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [repoPath('dist/bin/agentbox.js'), ...args], { cwd: dir, env: engine.env, encoding: 'utf8' });
    const compose = (...args: string[]) =>
      spawnSync('docker-compose', ['-p', 'agentboxbench', '-f', 'docker-compose.yml', ...args], { cwd: dir, env: engine.env, encoding: 'utf8' });
    if (cli('render', '--out', '.').status !== 0) throw new Error('agentbox render failed');
    const b0 = performance.now();
    const built = cli('image', 'build', '--load');
    if (built.status !== 0) throw new Error(`agentbox image build --load failed: ${built.stderr}`);
    const buildMs = performance.now() - b0;

    const local: number[] = [];
    const container: number[] = [];
    const upReturned: number[] = [];
    for (let i = 0; i < runs; i++) {
      local.push(await localOnce(manifest, dir, api, metrics));
      const t0 = performance.now();
      const up = compose('up', '-d');
      if (up.status !== 0) throw new Error(`docker-compose up -d failed: ${up.stderr}`);
      upReturned.push(performance.now() - t0);
      container.push((await firstReady(`http://127.0.0.1:${api}/ready`, 120_000)) - t0);
      compose('down', '-v', '--timeout', '10');
    }
    const row = (name: string, xs: number[], target = ''): string[] => [
      name,
      ms(median(xs)),
      ms(Math.min(...xs)),
      ms(quantile(xs, 1)),
      String(xs.length),
      target,
    ];
    return [
      '## Container (the generated docker-compose.yml under a private engine)',
      '',
      table(
        ['measurement', 'median', 'min', 'max', 'runs', 'target'],
        [
          row('`agentbox up --local` start → first /ready 200', local),
          row('`docker-compose up -d` start → first /ready 200 from the host', container),
          row('  of which `docker-compose up -d` itself', upReturned),
          ['container minus local (medians)', ms(median(container) - median(local)), '', '', '', '≤ 1 s'],
          ['`agentbox image build --load` (cache as found)', ms(buildMs), '', '', '1', ''],
        ],
      ),
      '',
      'Alternating local and container boots, fresh state each time (a new root; `down -v`). The image and engine start are outside the timed part.',
    ].join('\n');
  } finally {
    spawnSync('docker-compose', ['-p', 'agentboxbench', '-f', 'docker-compose.yml', 'down', '-v', '--timeout', '5'], { cwd: dir, env: engine.env });
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

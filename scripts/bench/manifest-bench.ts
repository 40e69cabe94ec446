// Manifest benchmarks: in-process validation of the reference manifest against a bare TOML
// parse, the installed bin's wall time against bare `node -e 0`, and a 10,000-programme file.
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parse } from 'smol-toml';
import { loadManifestSource } from '../../management-api/src/manifest/load-manifest.js';
import { repoPath } from '../cli/repo-path.js';
import { median, ms, quantile, table } from './stats.js';

const ctx = { targetArch: 'x86_64' as const, env: {} };

async function timeAsync(iterations: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return samples;
}

function wallTimes(runs: number, commands: Array<{ name: string; argv: string[] }>): Map<string, number[]> {
  const out = new Map(commands.map((c) => [c.name, [] as number[]]));
  // Interleaved, so both commands see the same machine state.
  for (let i = 0; i < runs; i++) {
    for (const c of commands) {
      const t0 = performance.now();
      const r = spawnSync(c.argv[0]!, c.argv.slice(1), { cwd: repoPath('.'), stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`${c.name} exited ${r.status}`);
      out.get(c.name)!.push(performance.now() - t0);
    }
  }
  return out;
}

/** Run the manifest benchmarks and return the report text. */
export async function runManifestBench(): Promise<string> {
  const reference = readFileSync(repoPath('agentbox.toml'), 'utf8');
  await timeAsync(300, () => loadManifestSource(reference, ctx)); // warm-up (JIT)
  await timeAsync(300, () => parse(reference));
  const full = await timeAsync(3000, () => loadManifestSource(reference, ctx));
  const bare = await timeAsync(3000, () => parse(reference));

  const bin = repoPath('node_modules/.bin/agentbox');
  const wall = wallTimes(40, [
    { name: 'node -e 0', argv: [process.execPath, '-e', '0'] },
    { name: 'agentbox config validate agentbox.toml', argv: [bin, 'config', 'validate', 'agentbox.toml'] },
  ]);
  const nodeMedian = median(wall.get('node -e 0')!);
  const binMedian = median(wall.get('agentbox config validate agentbox.toml')!);

  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-bench-'));
  const bigFile = path.join(dir, 'big.toml');
  writeFileSync(bigFile, Array.from({ length: 10_000 }, (_, i) => `[programs.p${i}]\ncommand = "/usr/bin/true"\npriority = ${100 + (i % 800)}\n`).join('\n'));
  const big = median(wall.size ? wallTimes(3, [{ name: 'big', argv: [bin, 'config', 'validate', bigFile] }]).get('big')! : []);

  return [
    '## Manifest',
    '',
    table(
      ['measurement', 'median', 'p99', 'target'],
      [
        ['validate reference manifest in-process (parse+schema+rules+hash)', ms(median(full)), ms(quantile(full, 0.99)), '≤ 1 ms median'],
        ['baseline: smol-toml parse only', ms(median(bare)), ms(quantile(bare, 0.99)), ''],
        ['bare `node -e 0` wall time (40 runs, interleaved)', ms(nodeMedian), ms(quantile(wall.get('node -e 0')!, 0.99)), ''],
        [
          '`node_modules/.bin/agentbox config validate agentbox.toml`',
          ms(binMedian),
          ms(quantile(wall.get('agentbox config validate agentbox.toml')!, 0.99)),
          '≤ 1.5× node -e 0',
        ],
        ['  ratio bin / node', `${(binMedian / nodeMedian).toFixed(2)}×`, '', '≤ 1.50×'],
        ['validate a 10,000-programme manifest (bin, 3 runs)', ms(big), '', '< 5 s'],
      ],
    ),
  ].join('\n');
}

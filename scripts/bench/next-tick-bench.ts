// nextTick cost before and after idle full collections, with and without the API's tick-shape pin
// (management-api/src/boot/tick-shape-pin.ts), in fresh processes side by side.
import { spawnSync } from 'node:child_process';
import { repoPath } from '../cli/repo-path.js';
import { median, table } from './stats.js';

const RUNS = 3;

function probe(pin: boolean): { before: number; after: number } {
  const args = ['--expose-gc', repoPath('dist/scripts/bench/next-tick-probe.js'), ...(pin ? ['--pin'] : [])];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`next-tick probe failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { before: number; after: number };
}

/** Run the nextTick benchmark and return its report. */
export async function runNextTickBench(): Promise<string> {
  const results = { plain: [] as Array<{ before: number; after: number }>, pinned: [] as Array<{ before: number; after: number }> };
  // Interleaved, so both variants see the same machine state.
  for (let i = 0; i < RUNS; i++) {
    results.plain.push(probe(false));
    results.pinned.push(probe(true));
  }
  const ns = (xs: number[]): string => `${median(xs).toFixed(0)} ns`;
  const row = (name: string, rs: Array<{ before: number; after: number }>): string[] => [
    name,
    ns(rs.map((r) => r.before)),
    ns(rs.map((r) => r.after)),
    `${(median(rs.map((r) => r.after)) / median(rs.map((r) => r.before))).toFixed(2)}×`,
  ];
  return [
    `nextTick benchmark — ${RUNS} fresh processes per variant (median of best-of-3), Node ${process.version}; "after" follows 4 full collections made while no tick was queued`,
    '',
    table(
      ['variant', 'per nextTick, fresh', 'after idle full GCs', 'after / fresh'],
      [row('Node as is', results.plain), row("with the API's tick-shape pin", results.pinned)],
    ),
  ].join('\n');
}

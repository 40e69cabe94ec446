// The disk walk that holds agents to their disk budget: one walk of a tree of many small files (a node_modules), beside `du -s` of it, with the CPU it takes and how long it holds the API's thread at a time.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { walkDisk } from '../../management-api/src/sandbox/limits/disk-walk.js';
import { heldDuring, median, ms, table } from './stats.js';

const FILES = Number(process.env['AGENTBOX_BENCH_WALK_FILES'] || 150_000);
const RUNS = Number(process.env['AGENTBOX_BENCH_WALK_RUNS'] || 5);
const PER_DIR = 300;
/** Entries below the tree's root: its directories and files. The walk's budget is set to them, as `sandbox.limits.entries` raised to fit such a tree (at most 1,000,000) would be, so the whole tree is walked. */
const ENTRIES = FILES + Math.ceil(FILES / PER_DIR);

/** Walks and `du -s` runs interleaved; medians, and the worst hold of the event loop over the walks. */
export async function runDiskWalkBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-walk-bench-'));
  try {
    const tree = path.join(work, 'tree');
    for (let i = 0; i < FILES; i++) {
      const sub = path.join(tree, `pkg${Math.floor(i / PER_DIR)}`);
      if (i % PER_DIR === 0) mkdirSync(sub, { recursive: true });
      closeSync(openSync(path.join(sub, `f${i}.js`), 'w'));
    }
    const walks: number[] = [];
    const cpu: number[] = [];
    const du: number[] = [];
    let heldP99 = 0;
    let heldMax = 0;
    let entries = 0;
    for (let run = 0; run < RUNS; run++) {
      const cpu0 = process.cpuUsage();
      const walked = await heldDuring(() => walkDisk([tree], { maxEntries: ENTRIES }));
      if (walked.value.overEntries) throw new Error(`the walk stopped at ${ENTRIES} entries: the tree holds more`);
      entries = walked.value.entries;
      walks.push(walked.ms);
      const used = process.cpuUsage(cpu0);
      cpu.push((used.user + used.system) / 1000);
      heldP99 = Math.max(heldP99, walked.heldP99Ms);
      heldMax = Math.max(heldMax, walked.heldMaxMs);
      const start = performance.now();
      execFileSync('du', ['-s', tree], { stdio: 'ignore' });
      du.push(performance.now() - start);
    }
    const [w, c, d] = [median(walks), median(cpu), median(du)];
    const figures = {
      entries,
      runs: RUNS,
      walkMs: w,
      walkCpuMs: c,
      duMs: d,
      entriesPerSecond: entries / (w / 1000),
      ratioVsDu: w / d,
      heldP99Ms: heldP99,
      heldMaxMs: heldMax,
    };
    const text = [
      `Disk walk (${entries} entries: ${FILES} empty files in ${Math.ceil(FILES / PER_DIR)} directories; ${RUNS} runs interleaved, medians; the page cache warm)`,
      '',
      table(
        ['measure the tree', 'time', 'entries/s', '÷ du -s'],
        [
          ['walkDisk (the agent disk budget)', ms(w), (entries / (w / 1000)).toFixed(0), (w / d).toFixed(2)],
          ['du -s of the same tree', ms(d), (entries / (d / 1000)).toFixed(0), '1.00'],
        ],
      ),
      '',
      `the walk's CPU (this process, all threads): ${ms(c)}; its hold of the event loop (1 ms resolution, the worst run's): p99 ${ms(heldP99)}, max ${ms(heldMax)}`,
      `At one walk every 5 s (the sampler's period), a tree like this one costs ${(c / 50).toFixed(1)} % of one core.`,
    ].join('\n');
    return { text, json: figures };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

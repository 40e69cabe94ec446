// Recursive deletes: DELETE …/files/<dir>?recursive of a tree of many small files (a node_modules) beside `rm -rf` of the same tree, in one run.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startBenchBox } from './dashboard-box.js';
import { median, ms, table } from './stats.js';

const FILES = Number(process.env['AGENTBOX_BENCH_DELETE_FILES'] || 90_000);
const RUNS = Number(process.env['AGENTBOX_BENCH_DELETE_RUNS'] || 3);
/** Files per directory: a package's worth. */
const PER_DIR = 300;

/** `FILES` empty files in directories of PER_DIR under `dir`. */
function makeTree(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `pkg${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(sub, { recursive: true });
    closeSync(openSync(path.join(sub, `f${i}.js`), 'w'));
  }
}

/** Time each way of removing the tree, runs interleaved: the box's recursive DELETE, and `rm -rf` of a local copy. */
export async function runDeleteBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const uiRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui');
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-delete-bench-'));
  const box = await startBenchBox(uiRoot);
  try {
    const spawned = await box.api('POST', '/v1/agents', { name: 'delete-bench', command: '/bin/sh', args: ['-c', 'exec sleep 600'] });
    if (spawned.status !== 201) throw new Error(`delete bench: spawn: ${JSON.stringify(spawned.json)}`);
    const id = (spawned.json['agent'] as { id: string }).id;
    const source = path.join(work, 'source');
    makeTree(source);
    const tarBody = execFileSync('tar', ['-c', '-C', source, '.'], { maxBuffer: 512 * 1024 * 1024 });
    const api: number[] = [];
    // The box's thread is this one: how long the delete held it at a time is how long any other request waited.
    // A monitor per run: one enabled again counts the time it was off as its first delay.
    const heldP99: number[] = [];
    const heldMax: number[] = [];
    const rm: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const up = await fetch(`${box.apiUrl}/v1/agents/${id}/files/tree`, {
        method: 'POST',
        headers: { authorization: `Bearer ${box.key}`, 'content-type': 'application/x-tar' },
        body: tarBody,
      });
      if (up.status !== 200) throw new Error(`delete bench: upload: ${up.status} ${await up.text()}`);
      spawnSync('sync');
      const held = monitorEventLoopDelay({ resolution: 1 });
      held.enable();
      let start = performance.now();
      const del = await fetch(`${box.apiUrl}/v1/agents/${id}/files/tree?recursive`, { method: 'DELETE', headers: { authorization: `Bearer ${box.key}` } });
      api.push(performance.now() - start);
      held.disable();
      heldP99.push(held.percentile(99) / 1e6);
      heldMax.push(held.max / 1e6);
      if (del.status !== 200) throw new Error(`delete bench: delete: ${del.status} ${await del.text()}`);
      const local = path.join(work, `copy${run}`);
      execFileSync('cp', ['-a', source, local]);
      spawnSync('sync');
      start = performance.now();
      execFileSync('rm', ['-rf', local]);
      rm.push(performance.now() - start);
    }
    const [a, r] = [median(api), median(rm)];
    const heldP99Ms = Math.max(...heldP99);
    const heldMaxMs = Math.max(...heldMax);
    const figures = {
      heldP99Ms,
      heldMaxMs,
      files: FILES,
      directories: Math.ceil(FILES / PER_DIR),
      runs: RUNS,
      apiDeleteMs: a,
      rmRfMs: r,
      ratio: a / r,
      apiSamples: api,
      rmSamples: rm,
    };
    const text = [
      `Recursive delete (one box in this process; ${FILES} empty files in ${Math.ceil(FILES / PER_DIR)} directories; ${RUNS} runs interleaved, medians)`,
      '',
      table(
        ['remove the tree', 'time', '÷ rm -rf'],
        [
          ['DELETE …/files/tree?recursive', ms(a), (a / r).toFixed(2)],
          ['rm -rf of the same tree', ms(r), '1.00'],
        ],
      ),
      '',
      `the API's thread during the DELETEs (event-loop delay, 1 ms resolution; the worst run's): p99 ${ms(heldP99Ms)}, max ${ms(heldMaxMs)}`,
      `runs: DELETE ${api.map(ms).join(', ')}; rm -rf ${rm.map(ms).join(', ')}`,
    ].join('\n');
    return { text, json: figures };
  } finally {
    await box.close();
    rmSync(work, { recursive: true, force: true });
  }
}

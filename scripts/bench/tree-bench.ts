// A tree of many small files (a node_modules) through the files API: a tar upload, a listing of a 10,000-name directory and a recursive delete, each beside its local command (tar -x, ls -l, rm -rf), in one run.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startBenchBox } from './dashboard-box.js';
import { heldDuring, median, ms, table } from './stats.js';

const FILES = Number(process.env['AGENTBOX_BENCH_TREE_FILES'] || 80_000);
const RUNS = Number(process.env['AGENTBOX_BENCH_TREE_RUNS'] || 3);
/** Files per directory: a package's worth. */
const PER_DIR = 300;
/** The directory listed: as many names as a listing answers. */
const FLAT = 10_000;

/** `FILES` empty files in directories of PER_DIR under `dir`, and FLAT more in `dir/flat`. */
function makeTree(dir: string): void {
  for (let i = 0; i < FILES; i++) {
    const sub = path.join(dir, `pkg${Math.floor(i / PER_DIR)}`);
    if (i % PER_DIR === 0) mkdirSync(sub, { recursive: true });
    closeSync(openSync(path.join(sub, `f${i}.js`), 'w'));
  }
  mkdirSync(path.join(dir, 'flat'));
  for (let i = 0; i < FLAT; i++) closeSync(openSync(path.join(dir, 'flat', `n${i}`), 'w'));
}

/** How long `work` took, and how long it held this thread (the box's) at most. */
async function timed(work: () => Promise<void>): Promise<{ ms: number; heldMs: number }> {
  const r = await heldDuring(work);
  return { ms: r.ms, heldMs: r.heldMaxMs };
}

function local(cmd: string, args: string[]): number {
  const start = performance.now();
  execFileSync(cmd, args, { stdio: 'ignore' });
  return performance.now() - start;
}

/** Each step by the API and by its local command, runs interleaved. */
export async function runTreeBench(): Promise<{ text: string; json: Record<string, unknown> }> {
  const uiRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../ui');
  const work = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), 'agentbox-tree-bench-'));
  const box = await startBenchBox(uiRoot);
  try {
    const spawned = await box.api('POST', '/v1/agents', { name: 'tree-bench', command: '/bin/sh', args: ['-c', 'exec sleep 600'] });
    if (spawned.status !== 201) throw new Error(`tree bench: spawn: ${JSON.stringify(spawned.json)}`);
    const id = (spawned.json['agent'] as { id: string }).id;
    const auth = { authorization: `Bearer ${box.key}` };
    const source = path.join(work, 'source');
    makeTree(source);
    const tarFile = path.join(work, 'tree.tar');
    execFileSync('tar', ['-c', '-f', tarFile, '-C', source, '.']);
    const tarBody = execFileSync('cat', [tarFile], { maxBuffer: 512 * 1024 * 1024 });
    const rows = { upload: [] as number[], list: [] as number[], delete: [] as number[], untar: [] as number[], ls: [] as number[], rm: [] as number[] };
    const held = { upload: 0, list: 0, delete: 0 };
    const call = async (method: string, route: string, body?: Buffer): Promise<void> => {
      const res = await fetch(`${box.apiUrl}/v1/agents/${id}/files/${route}`, {
        method,
        headers: { ...auth, ...(body ? { 'content-type': 'application/x-tar' } : {}) },
        ...(body ? { body } : {}),
      });
      const text = await res.text();
      if (res.status !== 200 && res.status !== 201) throw new Error(`tree bench: ${method} ${route}: ${res.status} ${text.slice(0, 300)}`);
    };
    // Each route's first call compiles its schemas (http/validator.ts, http/serializer.ts: on first
    // use, not at start) and holds the thread for that once: timed apart, on a small tree, so the
    // runs show what every later call holds.
    const smallTar = execFileSync('tar', ['-c', '-C', path.join(source, 'pkg0'), '.'], { maxBuffer: 64 * 1024 * 1024 });
    const first = {
      upload: (await timed(() => call('POST', 'warm', smallTar))).heldMs,
      list: (await timed(() => call('GET', 'warm?list'))).heldMs,
      delete: (await timed(() => call('DELETE', 'warm?recursive'))).heldMs,
    };
    for (let run = 0; run < RUNS; run++) {
      spawnSync('sync');
      for (const [row, step] of [
        ['upload', () => call('POST', 'tree', tarBody)],
        ['list', () => call('GET', 'tree/flat?list')],
        ['delete', () => call('DELETE', 'tree?recursive')],
      ] as const) {
        const r = await timed(step);
        rows[row].push(r.ms);
        held[row] = Math.max(held[row], r.heldMs);
        spawnSync('sync');
      }
      const copy = path.join(work, `copy${run}`);
      mkdirSync(copy);
      rows.untar.push(local('tar', ['-x', '-f', tarFile, '-C', copy]));
      spawnSync('sync');
      rows.ls.push(local('ls', ['-l', path.join(copy, 'flat')]));
      rows.rm.push(local('rm', ['-rf', copy]));
    }
    const m = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, median(v)])) as Record<keyof typeof rows, number>;
    const figures = { files: FILES + FLAT, runs: RUNS, medians: m, samples: rows, heldMaxMs: held, firstCallHeldMs: first };
    const text = [
      `A tree of many small files through the files API (one box in this process; ${FILES} empty files in ${Math.ceil(FILES / PER_DIR)} directories and ${FLAT} in one more; ${RUNS} runs interleaved, medians)`,
      '',
      table(
        ['step', 'API', 'local', 'API ÷ local', "box's thread held at most"],
        [
          ['POST …/files/tree (tar upload) | tar -x', ms(m.upload), ms(m.untar), (m.upload / m.untar).toFixed(2), ms(held.upload)],
          [`GET …/files/tree/flat?list (${FLAT} names) | ls -l`, ms(m.list), ms(m.ls), (m.list / m.ls).toFixed(2), ms(held.list)],
          ['DELETE …/files/tree?recursive | rm -rf', ms(m.delete), ms(m.rm), (m.delete / m.rm).toFixed(2), ms(held.delete)],
        ],
      ),
      '',
      "The last column is the longest the box's thread (this process's) was held at a time during the step, over the runs: its event-loop delay at 1 ms resolution.",
      `Each route's first call (a tar of ${PER_DIR} files, before the runs) compiles its schemas and held it longer, once: upload ${ms(first.upload)}, list ${ms(first.list)}, delete ${ms(first.delete)}.`,
    ].join('\n');
    return { text, json: figures };
  } finally {
    await box.close();
    rmSync(work, { recursive: true, force: true });
  }
}

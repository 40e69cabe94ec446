// The box's programmes run from their bundles (dist/box/, scripts/build/bundle-box.mjs): every process entry and every
// worker thread the code starts has its bundle, and the bundled API really starts each worker — the terminal screen, the
// snapshot capture, the tar pack and the vector index — where a path the bundle broke would fail only at the first use.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeRoot, waitFor, type TestServer } from '../api/support/harness.js';
import { openViewer } from '../api/support/terminal-viewer.js';
import { typeScriptFiles } from '../helpers/import-graph.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const src = path.join(repo, 'management-api/src');
const bundles = path.join(repo, 'dist/box');

t.test('each process entry and each worker the code starts has its bundle in dist/box', async (t) => {
  const entries = readdirSync(path.join(src, 'bin')).filter((f) => f.endsWith('.ts'));
  t.ok(entries.length >= 5, 'process entries found');
  for (const f of entries) t.ok(existsSync(path.join(bundles, f.replace(/\.ts$/, '.js'))), `dist/box/${f.replace(/\.ts$/, '.js')}`);
  // A worker is started by URL beside the starting module: the bundle puts it beside every chunk, under the same name.
  const started = typeScriptFiles(src).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/new Worker\(new URL\(`\.\/([\w-]+)\$\{/g)].map((m) => ({ file, name: m[1]! })),
  );
  t.ok(started.length >= 3, `workers found: ${started.map((w) => w.name).join(', ')}`);
  for (const { file, name } of started) {
    t.match(name, /-worker$/, `${path.relative(repo, file)} starts ${name}: a worker's module is named *-worker.ts, which is what the bundle takes`);
    t.ok(existsSync(path.join(path.dirname(file), `${name}.ts`)), `${name}.ts sits beside ${path.relative(repo, file)}`);
    t.ok(existsSync(path.join(bundles, `${name}.js`)), `dist/box/${name}.js`);
  }
});

t.test('the bundled API starts the terminal, snapshot, tar and vector index workers', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  const manifest = path.join(root.dir, 'agentbox.toml');
  await writeFile(manifest, '[adapters]\nbeads = "off"\npods = "off"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n');
  const child = spawn(process.execPath, [path.join(bundles, 'management-api.js'), '--manifest', manifest], {
    cwd: root.dir,
    env: { PATH: '/usr/bin:/bin', AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const listening = await waitFor(
    'the bundled API to listen',
    () => {
      const line = out.split('\n').find((l) => l.includes('"event":"ApiListening"'));
      return line ? (JSON.parse(line) as { apiUrl: string }) : undefined;
    },
    30_000,
  );
  const key = (await readFile(root.paths.apiKeyFile, 'utf8')).trim();
  const api = async (route: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${listening.apiUrl}${route}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  // The terminal emulators' worker: a viewer's first frame is the screen it serialises.
  const tty = await api('/v1/agents', { name: 'tty', command: '/bin/sh', args: ['-c', 'echo bundled-screen; exec sleep 600'], tty: true });
  t.equal(tty.status, 201, 'a tty agent spawned');
  const agentId = (tty.json['agent'] as { id: string }).id;
  // The line printed first: a viewer attached before it would be sent an empty screen, and the line after it.
  await waitFor(
    'the tty agent to print its line',
    async () => ((await api(`/v1/agents/${agentId}/output?after=0`)).json['chunks'] as Array<{ text: string }>).some((c) => c.text.includes('bundled-screen')),
    15_000,
  );
  const viewer = await openViewer({ server: { apiUrl: listening.apiUrl }, key } as unknown as TestServer, agentId);
  t.match(await viewer.screen(), /bundled-screen/, 'the screen came from the emulators’ worker');
  viewer.socket.close();

  // The snapshot worker: a snapshot of that agent's workspace holds the file written into it.
  await writeFile(path.join(root.paths.workspaceDir, (tty.json['agent'] as { cwd: string }).cwd, 'kept.txt'), 'kept\n');
  const snapshot = await api(`/v1/agents/${agentId}/snapshots`, {});
  t.equal(snapshot.status, 201, `a snapshot taken: ${JSON.stringify(snapshot.json)}`);
  t.ok(((snapshot.json['snapshot'] as { stats: { files: number } }).stats.files ?? 0) >= 1, 'it holds the file');

  // The tar worker: a download of that workspace holds the same file.
  const tarRes = await fetch(`${listening.apiUrl}/v1/agents/${agentId}/files/?format=tar`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(tarRes.status, 200, 'a tar download answered');
  const listed = execFileSync('tar', ['-tf', '-'], { input: Buffer.from(await tarRes.arrayBuffer()), encoding: 'utf8' });
  t.match(listed, /^kept\.txt$/m, 'it holds the file, packed by the tar worker');

  // The vector index's worker: a memory stored is found again.
  t.equal((await api('/v1/memory/notes', { id: 'm1', text: 'the bundle keeps its workers' })).status, 201, 'a memory stored');
  const hits = (await api('/v1/memory/notes/search', { text: 'bundle workers', k: 1 })).json['hits'] as Array<{ id: string }>;
  t.equal(hits[0]?.id, 'm1', 'and found by a search');
});

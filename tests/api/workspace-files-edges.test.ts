// Workspace files at the edges of what the kernel allows: names of 255 bytes, a file shrunk under a read or a tar download, a tree deeper than the box walks.
import t from 'tap';
import { mkdir, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

let box: TestServer;
let id: string;
let ws: string;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
  const res = await box.api('/v1/agents', { body: { name: 'edges', command: '/bin/sh', args: ['-c', 'touch ready && exec sleep 600'] } });
  id = (res.json['agent'] as { id: string }).id;
  ws = path.join(box.paths.workspaceDir, 'edges');
  await waitFor('the agent started', () =>
    stat(path.join(ws, 'ready')).then(
      () => true,
      () => false,
    ),
  );
});
t.teardown(() => box?.close());

const files = (p: string, init: RequestInit = {}) =>
  fetch(`${box.server.apiUrl}/v1/agents/${id}/files/${p}`, {
    ...init,
    headers: { authorization: `Bearer ${box.key}`, ...(init.headers as Record<string, string>) },
  });

t.test('a name of 255 bytes in characters of 3 and 4 bytes is written, read and listed (its temporary name fits too)', async (t) => {
  for (const name of ['€'.repeat(85), '😀'.repeat(63), `x${'😀'.repeat(63)}`, 'n'.repeat(255)]) {
    t.equal(Buffer.byteLength(name) <= 255, true);
    const put = await files(encodeURIComponent(name), { method: 'PUT', body: 'long' });
    t.equal(put.status, 201, `PUT of a name of ${Buffer.byteLength(name)} bytes`);
    t.equal(await (await files(encodeURIComponent(name))).text(), 'long');
    t.equal(await readFile(path.join(ws, name), 'utf8'), 'long');
  }
  t.same(
    (await readdir(ws)).filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
});

t.test('a file made shorter while it is read cuts the answer off at once, never leaving the client waiting for the rest', async (t) => {
  await writeFile(path.join(ws, 'shrinks.bin'), Buffer.alloc(64 << 20, 1));
  const res = await files('shrinks.bin');
  t.equal(res.headers.get('content-length'), String(64 << 20));
  const reader = res.body!.getReader();
  let got = (await reader.read()).value?.length ?? 0;
  await truncate(path.join(ws, 'shrinks.bin'), 1000);
  const began = Date.now();
  const outcome = await (async () => {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return 'ended';
      got += chunk.value.length;
    }
  })().catch(() => 'cut');
  t.equal(outcome, 'cut', 'the transfer fails: never a short body that looks whole');
  t.ok(got < 64 << 20, `${got} bytes came`);
  t.ok(Date.now() - began < 5_000, `cut within seconds (${Date.now() - began} ms), not at the server's timeout`);
  t.equal(await (await files('ready')).status, 200, 'the box goes on serving');
});

t.test('a file made shorter while a tar download packs it cuts the download off: never a tar that reads whole with zeros the file did not hold', async (t) => {
  await mkdir(path.join(ws, 'packed'));
  await writeFile(path.join(ws, 'packed/shrinks.bin'), Buffer.alloc(64 << 20, 1));
  const res = await files('packed?format=tar');
  t.equal(res.status, 200);
  const reader = res.body!.getReader();
  await reader.read();
  await truncate(path.join(ws, 'packed/shrinks.bin'), 1000);
  const outcome = await (async () => {
    for (;;) if ((await reader.read()).done) return 'ended';
  })().catch(() => 'cut');
  t.equal(outcome, 'cut', 'the transfer fails');
  const again = await files('packed?format=tar');
  t.equal(again.status, 200, 'tried again, as it is now');
  t.equal((await again.arrayBuffer()).byteLength, 512 + 1024 + 1024, 'its header, its 1,000 bytes padded to a block, the end');
});

t.test('a recursive delete refuses a tree deeper than the box walks (413), and removes one as deep as it walks', async (t) => {
  // A directory at each level from 1 to MAX_TREE_DEPTH + 2 below the workspace.
  const deep = path.join(ws, 'deep', ...Array.from({ length: MAX_TREE_DEPTH + 1 }, () => 'd'));
  await mkdir(deep, { recursive: true });
  const res = await files('deep?recursive', { method: 'DELETE' });
  t.equal(res.status, 413);
  t.match(await res.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: new RegExp(`more than ${MAX_TREE_DEPTH} levels deep \\(at "deep/d/d`) });

  await mkdir(path.join(ws, 'flat', ...Array.from({ length: MAX_TREE_DEPTH - 1 }, () => 'd')), { recursive: true });
  const flat = await files('flat?recursive', { method: 'DELETE' });
  t.equal(flat.status, 200, 'a directory at the deepest level the box walks is removed');
  t.match(await flat.json(), { removed: MAX_TREE_DEPTH });
  await t.rejects(stat(path.join(ws, 'flat')), { code: 'ENOENT' });
});

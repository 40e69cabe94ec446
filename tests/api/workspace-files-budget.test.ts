// Writes through the files API against the agent's disk budget between two walks (in a row, at once, tars), each PUT's ETag its own
// under concurrent writers, and a directory removed under a write answered 409, not 500.
import t from 'tap';
import http from 'node:http';
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';
import { USTAR_END, ustarHeader } from '../helpers/ustar.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

const MIB = 1024 * 1024;
const spawn = async (name: string, disk?: string): Promise<string> => {
  const res = await box.api('/v1/agents', { body: { name, command: '/bin/sh', args: ['-c', 'exec sleep 600'], ...(disk ? { limits: { disk } } : {}) } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return (res.json['agent'] as { id: string }).id;
};
const put = (id: string, name: string, body: Buffer) =>
  fetch(`${box.server.apiUrl}/v1/agents/${id}/files/${name}`, { method: 'PUT', body, headers: { authorization: `Bearer ${box.key}` } });
const postTar = (id: string, dir: string, body: Buffer) =>
  fetch(`${box.server.apiUrl}/v1/agents/${id}/files/${dir}`, {
    method: 'POST',
    body,
    headers: { authorization: `Bearer ${box.key}`, 'content-type': 'application/x-tar' },
  });

/** A one-file tar (tests/helpers/ustar.ts), its data all 'x'. */
const tarOf = (name: string, size: number): Buffer => Buffer.concat([ustarHeader(name, '0', size), Buffer.alloc(Math.ceil(size / 512) * 512, 'x'), USTAR_END]);

/** Bytes of the regular files in `dir` (not below). */
async function filesBytes(dir: string): Promise<number> {
  let sum = 0;
  for (const name of await readdir(dir)) {
    const st = await stat(path.join(dir, name));
    if (st.isFile()) sum += st.size;
  }
  return sum;
}

t.test('PUTs in a row between two walks: the second that would pass the budget is refused', async (t) => {
  const id = await spawn('in-a-row', '20m');
  t.equal((await put(id, 'a.bin', Buffer.alloc(15 * MIB, 1))).status, 201, 'the first 15 MiB fits in 20 MiB');
  const second = await put(id, 'b.bin', Buffer.alloc(15 * MIB, 2));
  t.equal(second.status, 413, 'the second is refused though no walk has counted the first yet');
  t.match(await second.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: /disk budget/ });
  t.equal((await put(id, 'c.bin', Buffer.alloc(4 * MIB, 3))).status, 201, 'what is left still takes a smaller file');
  t.equal((await put(id, 'd.bin', Buffer.alloc(4 * MIB, 4))).status, 413, 'and then no more');
  t.equal(await filesBytes(path.join(box.paths.workspaceDir, 'in-a-row')), 19 * MIB, 'only what fits was kept');
});

t.test('PUTs at once share what is left: their sum stays within the budget', async (t) => {
  const id = await spawn('at-once', '20m');
  const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => put(id, `f${i}.bin`, Buffer.alloc(4_000_000, i))));
  const kept = answers.filter((r) => r.status === 201).length;
  const refusals = await Promise.all(answers.filter((r) => r.status !== 201).map(async (r) => `${r.status} ${await r.text()}`));
  t.ok(kept >= 1 && kept <= 5, `1 to 5 of ten 4 MB files fit in 20 MiB (${kept} did)`, { refusals });
  t.same(
    refusals.map((r) => r.slice(0, 3)),
    Array(10 - kept).fill('413'),
    'the rest are refused as over the budget',
  );
  t.ok((await filesBytes(path.join(box.paths.workspaceDir, 'at-once'))) <= 20 * MIB, 'the files kept are within the budget');
  t.same(
    (await readdir(path.join(box.paths.workspaceDir, 'at-once'))).filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file left',
  );
});

t.test('tar uploads in a row and at once: what the budget has left, not the last walk', async (t) => {
  const id = await spawn('tars', '20m');
  t.equal((await postTar(id, 'one', tarOf('a.bin', 12 * MIB))).status, 200, 'the first 12 MiB fits');
  const next = await postTar(id, 'two', tarOf('b.bin', 12 * MIB));
  t.equal(next.status, 413, 'a second 12 MiB in a row does not');
  t.match(await next.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: /disk budget/ });
  const other = await spawn('tars-at-once', '20m');
  const both = await Promise.all([postTar(other, 'x', tarOf('x.bin', 12 * MIB)), postTar(other, 'y', tarOf('y.bin', 12 * MIB))]);
  t.same(both.map((r) => r.status).sort(), [200, 413], 'of two at once, one');
});

t.test('a write the last walk has seen is no longer counted twice', async (t) => {
  const id = await spawn('walked', '20m');
  t.equal((await put(id, 'a.bin', Buffer.alloc(12 * MIB, 1))).status, 201);
  const written = Date.now();
  // A walk that began after the write has counted it: the write's own charge is dropped, and what is left is the budget less the walk.
  await waitFor(
    'a disk walk begun after the write',
    async () => {
      const usage = (await box.api(`/v1/agents/${id}`)).json['agent'] as { usage?: { disk_bytes?: number; disk_measured_at?: string } };
      return usage.usage?.disk_measured_at !== undefined && Date.parse(usage.usage.disk_measured_at) > written;
    },
    20_000,
  );
  t.equal((await put(id, 'b.bin', Buffer.alloc(6 * MIB, 2))).status, 201, '12 + 6 MiB fit in 20 MiB once walked as once not');
  t.equal((await put(id, 'c.bin', Buffer.alloc(3 * MIB, 3))).status, 413, '12 + 6 + 3 MiB do not');
});

t.test("each PUT answers its own file's ETag, whatever another writer does to the name meanwhile", async (t) => {
  const id = await spawn('etags');
  const wrong: string[] = [];
  for (let round = 0; round < 20; round++) {
    const sizes = [1000, 2000, 3000, 4000];
    const answers = await Promise.all(
      sizes.map((n) => put(id, 'e.txt', Buffer.alloc(n, 'e')).then(async (r) => ({ n, body: (await r.json()) as { etag: string } }))),
    );
    for (const { n, body } of answers) {
      // The ETag is "<ino>-<size>-<mtime>", base 36.
      const size = Number.parseInt(body.etag.split('-')[1]!, 36);
      if (size !== n) wrong.push(`a PUT of ${n} bytes answered ${body.etag}`);
    }
  }
  t.same(wrong, [], 'no PUT answered with another write');
});

t.test('a directory removed while a PUT into it streams: 409, nothing kept, no temporary file', async (t) => {
  const id = await spawn('raced');
  const dir = path.join(box.paths.workspaceDir, 'raced', 'm');
  const url = new URL(`${box.server.apiUrl}/v1/agents/${id}/files/m/x.txt`);
  const answer = new Promise<{ status: number; json: { error: string; message: string } }>((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'PUT', headers: { authorization: `Bearer ${box.key}` } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.write('first part ');
    // Once the box made m and its temporary file there, m goes (as an agent's rm -rf would), then the body ends.
    void waitFor('the temporary file', async () => (await readdir(dir).catch(() => [])).some((n) => n.endsWith('.tmp')), 10_000).then(async () => {
      await rm(dir, { recursive: true, force: true });
      req.end('last part');
    });
  });
  const { status, json } = await answer;
  t.equal(status, 409);
  t.match(json, {
    error: 'ABX_ERR_CONFLICT',
    message: /"m\/x\.txt" changed in the workspace while the request ran \(ENOENT\): look at what is there, and retry/,
  });
  t.notMatch(json.message, /\/proc\/self\/fd/, "the box's own paths are not in the answer");
  await t.rejects(stat(dir), 'nothing was made again');
});

t.test('writes of unknown length at once, refused midway: within the budget, and their connections serve the next requests', async (t) => {
  const id = await spawn('chunked', '20m');
  for (let round = 0; round < 3; round++) {
    // No Content-Length: each write takes the budget chunk by chunk, and most are refused partway through their bodies.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const body = new ReadableStream({
          start(c) {
            for (let k = 0; k < 8; k++) c.enqueue(new Uint8Array(MIB / 2));
            c.close();
          },
        });
        return fetch(`${box.server.apiUrl}/v1/agents/${id}/files/r${round}-${i}.bin`, {
          method: 'PUT',
          body,
          duplex: 'half',
          headers: { authorization: `Bearer ${box.key}` },
        } as RequestInit);
      }),
    );
    t.ok(
      answers.every((r) => r.status === 201 || r.status === 413),
      `round ${round}: each written or refused (${answers.map((r) => r.status).join(' ')})`,
    );
    // The refused bodies were read to their end: the kept-alive connections take these at once (they hung until the keep-alive timeout).
    const next = await Promise.all(
      Array.from({ length: 10 }, () => fetch(`${box.server.apiUrl}/v1/agents/${id}/files?list`, { headers: { authorization: `Bearer ${box.key}` } })),
    );
    t.same(
      next.map((r) => r.status),
      Array(10).fill(200),
      `round ${round}: the next requests are answered`,
    );
  }
  t.ok((await filesBytes(path.join(box.paths.workspaceDir, 'chunked'))) <= 20 * MIB, 'what was kept is within the budget');
});

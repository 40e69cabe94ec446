// Inside snapshots without forking, on a real box with a real sandboxed agent: what changed between two (every kind of change, both ways, cut
// at a limit), a snapshot's files, listings and tars read from the store (multi-chunk and sparse files byte for byte, after the workspace lost them,
// while a delete sweeps their pack, never a damaged chunk), links never followed, bad paths and ids refused, agents refused; and the same answers from worker threads.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, open, readFile, readlink, rename, rm, stat, symlink, truncate, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { browseSnapshot, diffSnapshots, openSnapshotFile } from '../../management-api/src/snapshots/snapshot-inspect.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { snapshotStoreDir } from '../../management-api/src/snapshots/snapshots-plugin.js';
import { startTestServer, type TestServer } from './support/harness.js';
import { flipChunkByte } from '../helpers/damaged-chunk.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

type Agent = { id: string; pid: number; cwd: string; name: string };
type Change = { path: string; change: string; type: string; what?: string[]; size?: number; sizeBefore?: number };

const spawn = async (name: string): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body: { name, command: '/bin/sh', args: ['-c', 'exec sleep 600'] } });
  if (res.status !== 201) throw new Error(`spawn failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const snap = async (id: string): Promise<string> => {
  const res = await box.api(`/v1/agents/${id}/snapshots`, { body: {} });
  if (res.status !== 201) throw new Error(`snapshot failed: ${res.status} ${JSON.stringify(res.json)}`);
  return (res.json['snapshot'] as { id: string }).id;
};
const dirOf = (agent: Agent) => path.join(box.paths.workspaceDir, agent.cwd);
const raw = (pathname: string, headers: Record<string, string> = {}) =>
  fetch(box.server.apiUrl + pathname, { headers: { authorization: `Bearer ${box.key}`, ...headers } });
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

const big = randomBytes(3 * 1024 * 1024 + 17);
const sparseTail = randomBytes(4096);

let alpha: Agent;
let s1: string;
let s2: string;
t.before(async () => {
  alpha = await spawn('alpha');
  const dir = dirOf(alpha);
  await mkdir(path.join(dir, 'src/lib'), { recursive: true });
  await writeFile(path.join(dir, 'src/a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(dir, 'src/b.ts'), 'export const b = 2;\n');
  await writeFile(path.join(dir, 'src/lib/c.ts'), 'export const c = 3;\n');
  await writeFile(path.join(dir, 'src-x.ts'), 'sorts after src/ by segment\n');
  await writeFile(path.join(dir, 'README.md'), '# readme\n');
  await writeFile(path.join(dir, 'big.bin'), big);
  await writeFile(path.join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o750 });
  await chmod(path.join(dir, 'run.sh'), 0o750);
  // Two whole chunks of zeros (holes, never stored), then data.
  await writeFile(path.join(dir, 'sparse.img'), '');
  await truncate(path.join(dir, 'sparse.img'), 2 * 1024 * 1024);
  const h = await open(path.join(dir, 'sparse.img'), 'r+');
  await h.write(sparseTail, 0, sparseTail.length, 2 * 1024 * 1024);
  await h.close();
  await writeFile(path.join(dir, 'x'), 'a file that becomes a directory\n');
  await symlink('src/a.ts', path.join(dir, 'link'));
  await utimes(path.join(dir, 'README.md'), 1_600_000_000, 1_600_000_000);
  s1 = await snap(alpha.id);

  await writeFile(path.join(dir, 'src/a.ts'), 'export const a = 10;\n');
  await chmod(path.join(dir, 'src/b.ts'), 0o600);
  await utimes(path.join(dir, 'README.md'), 1_700_000_000, 1_700_000_000);
  await unlink(path.join(dir, 'big.bin'));
  await rm(path.join(dir, 'src/lib'), { recursive: true });
  await mkdir(path.join(dir, 'src/new'));
  await writeFile(path.join(dir, 'src/new/d.ts'), 'export const d = 4;\n');
  await unlink(path.join(dir, 'link'));
  await symlink('src/b.ts', path.join(dir, 'link'));
  await unlink(path.join(dir, 'x'));
  await mkdir(path.join(dir, 'x'));
  await writeFile(path.join(dir, 'x/inside.txt'), 'in\n');
  s2 = await snap(alpha.id);
});

const expected: Change[] = [
  { path: 'big.bin', change: 'deleted', type: 'file', size: big.length },
  { path: 'link', change: 'modified', type: 'symlink', what: ['target'] },
  { path: 'src/a.ts', change: 'modified', type: 'file', what: ['content'], size: 21, sizeBefore: 20 },
  { path: 'src/b.ts', change: 'modified', type: 'file', what: ['mode'], size: 20, sizeBefore: 20 },
  { path: 'src/lib', change: 'deleted', type: 'dir' },
  { path: 'src/lib/c.ts', change: 'deleted', type: 'file', size: 20 },
  { path: 'src/new', change: 'added', type: 'dir' },
  { path: 'src/new/d.ts', change: 'added', type: 'file', size: 20 },
  { path: 'x', change: 'modified', type: 'dir', what: ['type'], sizeBefore: 32 },
  { path: 'x/inside.txt', change: 'added', type: 'file', size: 3 },
];

t.test('a diff lists every change in path order, counts them, and leaves out a changed mtime alone', async (t) => {
  const res = await box.api(`/v1/snapshots/${s2}/diff?from=${s1}`);
  t.equal(res.status, 200, JSON.stringify(res.json));
  t.same(res.json['changes'], expected, 'exactly these changes (README.md, touched only, is not one; src-x.ts comes after src/…)');
  t.same(res.json['counts'], { added: 3, deleted: 3, modified: 4 });
  t.equal(res.json['addedBytes'], 23, 'the files added');
  t.equal(res.json['deletedBytes'], big.length + 20, 'the files deleted');
  t.equal(res.json['truncated'], false);
  t.equal(res.json['from'], s1);
  t.equal(res.json['to'], s2);

  const back = await box.api(`/v1/snapshots/${s1}/diff?from=${s2}`);
  t.same(back.json['counts'], { added: 3, deleted: 3, modified: 4 }, 'the other way round: additions are deletions');
  t.same(
    (back.json['changes'] as Change[]).map((c) => `${c.change} ${c.path}`),
    [
      'added big.bin',
      'modified link',
      'modified src/a.ts',
      'modified src/b.ts',
      'added src/lib',
      'added src/lib/c.ts',
      'deleted src/new',
      'deleted src/new/d.ts',
      'modified x',
      'deleted x/inside.txt',
    ],
  );

  const same = await box.api(`/v1/snapshots/${s2}/diff?from=${s2}`);
  t.same([same.json['changes'], same.json['counts']], [[], { added: 0, deleted: 0, modified: 0 }], 'a snapshot against itself: nothing');

  const cut = await box.api(`/v1/snapshots/${s2}/diff?from=${s1}&limit=3`);
  t.same(cut.json['changes'], expected.slice(0, 3), 'cut at the limit, in the same order');
  t.equal(cut.json['truncated'], true);
  t.same(cut.json['counts'], { added: 3, deleted: 3, modified: 4 }, 'counts cover every change whatever the limit');
});

t.test('a diff is paged by cursor: every change once, in order, whatever the page size', async (t) => {
  for (const limit of [1, 3, 4, 9, 10]) {
    const pages: Change[][] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 20; n++) {
      const res = await box.api(`/v1/snapshots/${s2}/diff?from=${s1}&limit=${limit}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      t.equal(res.status, 200, JSON.stringify(res.json));
      t.same(res.json['counts'], { added: 3, deleted: 3, modified: 4 }, 'every page counts every change');
      pages.push(res.json['changes'] as Change[]);
      cursor = res.json['nextCursor'] as string | undefined;
      t.equal(res.json['truncated'], cursor !== undefined, 'a next cursor exactly when more follow');
      if (cursor === undefined) break;
    }
    t.same(pages.flat(), expected, `pages of ${limit}: the whole diff, once`);
    t.equal(pages.length, Math.ceil(expected.length / limit), `pages of ${limit}: no empty last page`);
  }
  t.same((await box.api(`/v1/snapshots/${s2}/diff?from=${s1}&cursor=`)).json['changes'], expected, 'an empty cursor is the first page');
  for (const bad of ['nonsense', Buffer.from('{"after":1}').toString('base64url'), Buffer.from('seq:4').toString('base64url')]) {
    const res = await box.api(`/v1/snapshots/${s2}/diff?from=${s1}&cursor=${bad}`);
    t.match(res, { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /cursor/ } }, `cursor ${bad} refused`);
  }
});

t.test('a diff of unknown or malformed snapshots is refused, naming them', async (t) => {
  const unknown = await box.api(`/v1/snapshots/${s2}/diff?from=snp_AAAAAAAAAAAA`);
  t.equal(unknown.status, 404);
  t.match(unknown.json['message'], /snp_AAAAAAAAAAAA/);
  t.equal((await box.api(`/v1/snapshots/snp_AAAAAAAAAAAA/diff?from=${s1}`)).status, 404);
  t.equal((await box.api(`/v1/snapshots/${s2}/diff`)).status, 400, 'from is required');
  t.equal((await box.api(`/v1/snapshots/${s2}/diff?from=../x`)).status, 400);
  t.equal((await box.api(`/v1/snapshots/${s2}/diff?from=${s1}&limit=0`)).status, 400);
  t.equal((await box.api(`/v1/snapshots/${s2}/diff?from=${s1}`, { auth: false })).status, 401);
});

t.test("a snapshot's files are read from the store, byte for byte, after the workspace lost them", async (t) => {
  const res = await raw(`/v1/snapshots/${s1}/files/big.bin`);
  t.equal(res.status, 200);
  t.ok(Buffer.from(await res.arrayBuffer()).equals(big), 'four chunks, the last short: the bytes as they were (the workspace no longer has the file)');
  t.equal(res.headers.get('content-length'), String(big.length));
  t.equal(res.headers.get('content-type'), 'application/octet-stream');
  const etag = res.headers.get('etag')!;
  t.match(etag, /^"[0-9a-f]{32}"$/);
  t.equal((await raw(`/v1/snapshots/${s1}/files/big.bin`, { 'if-none-match': etag })).status, 304, 'If-None-Match');

  const sparse = await raw(`/v1/snapshots/${s1}/files/sparse.img`);
  t.ok(Buffer.from(await sparse.arrayBuffer()).equals(Buffer.concat([Buffer.alloc(2 * 1024 * 1024), sparseTail])), 'holes read as zeros, then the data');

  const script = await raw(`/v1/snapshots/${s1}/files/run.sh`);
  t.equal(script.headers.get('x-file-mode'), '0750');
  t.equal(await script.text(), '#!/bin/sh\n');
  t.equal(await (await raw(`/v1/snapshots/${s1}/files/src/a.ts`)).text(), 'export const a = 1;\n', 'the earlier content');
  t.equal(await (await raw(`/v1/snapshots/${s2}/files/src/a.ts`)).text(), 'export const a = 10;\n', 'the later content');
  const readme = await raw(`/v1/snapshots/${s1}/files/README.md`);
  t.equal(readme.headers.get('last-modified'), new Date(1_600_000_000_000).toUTCString());
  const tags = async (p: string) => Promise.all([s1, s2].map(async (s) => (await raw(`/v1/snapshots/${s}/files/${p}`)).headers.get('etag')));
  const [b1, b2] = await tags('src/b.ts');
  t.equal(b1, b2, 'the same bytes in two snapshots: the same ETag');
  const [a1, a2] = await tags('src/a.ts');
  t.not(a1, a2, 'other bytes: another');
});

t.test("a snapshot's directories are listed as the workspace files API lists them", async (t) => {
  const root = await box.api(`/v1/snapshots/${s1}/files?list`);
  t.equal(root.status, 200);
  const entries = root.json['entries'] as Array<Record<string, unknown>>;
  t.same(
    entries.map((e) => e['name']),
    ['README.md', 'big.bin', 'link', 'run.sh', 'sparse.img', 'src', 'src-x.ts', 'x'],
    'by name, directly under it',
  );
  t.match(
    entries.find((e) => e['name'] === 'link'),
    { type: 'symlink', target: 'src/a.ts' },
  );
  t.match(
    entries.find((e) => e['name'] === 'run.sh'),
    { type: 'file', mode: '0750', size: 10 },
  );
  t.match(
    entries.find((e) => e['name'] === 'README.md'),
    { mtime: new Date(1_600_000_000_000).toISOString() },
  );
  t.match(
    entries.find((e) => e['name'] === 'src'),
    { type: 'dir' },
  );
  const src = await box.api(`/v1/snapshots/${s1}/files/src/?list`);
  t.same(
    (src.json['entries'] as Array<{ name: string }>).map((e) => e.name),
    ['a.ts', 'b.ts', 'lib'],
  );
  t.equal(src.json['path'], 'src');
});

t.test("a snapshot's directory as a tar, packed from the store: the tree as it was, parents first", async (t) => {
  const res = await raw(`/v1/snapshots/${s1}/files?format=tar`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/x-tar');
  const tar = Buffer.from(await res.arrayBuffer());
  const listed = execFileSync('tar', ['-tf', '-'], { input: tar, encoding: 'utf8' }).trim().split('\n');
  t.same(
    listed,
    ['README.md', 'big.bin', 'link', 'run.sh', 'sparse.img', 'src/', 'src/a.ts', 'src/b.ts', 'src/lib/', 'src/lib/c.ts', 'src-x.ts', 'x'],
    'every entry, a directory before what it holds',
  );
  const out = await mkdtemp(path.join(tmpdir(), 'agentbox-snapshot-tar-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  execFileSync('tar', ['-xf', '-', '-C', out], { input: tar });
  t.ok((await readFile(path.join(out, 'big.bin'))).equals(big), 'a file of four chunks, byte for byte');
  t.ok((await readFile(path.join(out, 'sparse.img'))).equals(Buffer.concat([Buffer.alloc(2 * 1024 * 1024), sparseTail])), 'holes as zeros');
  t.equal(await readFile(path.join(out, 'src/a.ts'), 'utf8'), 'export const a = 1;\n', 'the earlier content, not the workspace now');
  t.equal(await readFile(path.join(out, 'x'), 'utf8'), 'a file that becomes a directory\n');
  t.equal(await readlink(path.join(out, 'link')), 'src/a.ts', 'a link as a link');
  t.equal((await stat(path.join(out, 'run.sh'))).mode & 0o777, 0o750, 'permission bits');
  t.equal(Math.round((await stat(path.join(out, 'README.md'))).mtimeMs / 1000), 1_600_000_000, 'modification time');

  const below = await raw(`/v1/snapshots/${s2}/files/src?format=tar`);
  t.equal(below.headers.get('content-disposition'), 'attachment; filename="src.tar"');
  t.same(
    execFileSync('tar', ['-tf', '-'], { input: Buffer.from(await below.arrayBuffer()), encoding: 'utf8' })
      .trim()
      .split('\n'),
    ['a.ts', 'b.ts', 'new/', 'new/d.ts'],
    'a directory below: names relative to it, from the later snapshot',
  );
  for (const [url, status, message] of [
    [`/v1/snapshots/${s1}/files/run.sh?format=tar`, 409, /not a directory: a tar is made of a directory/],
    [`/v1/snapshots/${s1}/files/nope?format=tar`, 404, /holds no "nope"/],
    [`/v1/snapshots/${s1}/files/link?format=tar`, 409, /not a directory/],
    [`/v1/snapshots/${s1}/files?format=zip`, 400, /format/],
  ] as const) {
    const refused = await box.api(url);
    t.equal(refused.status, status, url);
    t.match(refused.json['message'], message, url);
  }
});

t.test('links are never followed; wrong types, missing paths, bad paths and agents are refused', async (t) => {
  const cases: Array<[string, number, RegExp]> = [
    [`/v1/snapshots/${s1}/files/link`, 409, /symbolic link to "src\/a.ts"/],
    [`/v1/snapshots/${s2}/files/link/x`, 400, /passes through the symbolic link "link"/],
    [`/v1/snapshots/${s1}/files/src`, 409, /is a directory: list it \(\?list; agentbox snapshot files snp_\S+ src\)/],
    [`/v1/snapshots/${s1}/files/run.sh?list`, 409, /not a directory/],
    [`/v1/snapshots/${s1}/files/run.sh/`, 409, /not a directory/],
    [`/v1/snapshots/${s1}/files/run.sh/more`, 409, /"run.sh" in snapshot .* is not a directory/],
    [`/v1/snapshots/${s1}/files/nope.txt`, 404, /holds no "nope.txt"/],
    [`/v1/snapshots/${s1}/files/src%2F..%2Fbig.bin`, 400, /must not contain "\.\." segments/],
    [`/v1/snapshots/snp_AAAAAAAAAAAA/files/big.bin`, 404, /snp_AAAAAAAAAAAA/],
  ];
  for (const [url, status, message] of cases) {
    const res = await box.api(url);
    t.equal(res.status, status, url);
    t.match(res.json['message'], message, url);
  }
  const token = await tokenOf(alpha.pid);
  t.ok(token, 'the agent has a token');
  for (const url of [`/v1/snapshots/${s1}/files/big.bin`, `/v1/snapshots/${s1}/files?list`, `/v1/snapshots/${s2}/diff?from=${s1}`])
    t.equal((await box.api(url, { auth: token })).status, 403, `an agent's token may not read snapshots: ${url}`);
});

t.test('a file being read stays whole while a delete sweeps the pack it is in', async (t) => {
  const beta = await spawn('beta');
  const payload = randomBytes(24 * 1024 * 1024);
  await writeFile(path.join(dirOf(beta), 'payload.bin'), payload);
  const only = await snap(beta.id);
  const res = await raw(`/v1/snapshots/${only}/files/payload.bin`);
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  const first = await reader.read();
  parts.push(first.value!);
  const deleted = await box.api(`/v1/snapshots/${only}`, { method: 'DELETE' });
  t.equal(deleted.status, 200);
  t.ok((deleted.json['freedBytes'] as number) >= payload.length, 'its chunks were removed from the store');
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  t.ok(Buffer.concat(parts).equals(payload), 'the download went on to the last byte, as it was');
  t.equal((await box.api(`/v1/snapshots/${only}/files/payload.bin`)).status, 404, 'and the snapshot is gone after');

  // The same for a directory's tar: the worker opened every pack before its first byte.
  const again = await snap(beta.id);
  const tarRes = await raw(`/v1/snapshots/${again}/files?format=tar`);
  const tarReader = tarRes.body!.getReader();
  const tarParts: Uint8Array[] = [(await tarReader.read()).value!];
  t.equal((await box.api(`/v1/snapshots/${again}`, { method: 'DELETE' })).status, 200, 'deleted while its tar is read');
  for (;;) {
    const { done, value } = await tarReader.read();
    if (done) break;
    tarParts.push(value);
  }
  const out = await mkdtemp(path.join(tmpdir(), 'agentbox-snapshot-tar-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  execFileSync('tar', ['-xf', '-', '-C', out], { input: Buffer.concat(tarParts) });
  t.ok((await readFile(path.join(out, 'payload.bin'))).equals(payload), 'the tar went on to its end, the file whole');
});

t.test('a chunk damaged in its pack is never answered as the file: refused before the answer, or the answer cut at it', async (t) => {
  const gamma = await spawn('gamma');
  const small = randomBytes(5000);
  const large = randomBytes(2 * 1024 * 1024 + 9);
  await writeFile(path.join(dirOf(gamma), 'small.bin'), small);
  await writeFile(path.join(dirOf(gamma), 'large.bin'), large);
  const sid = await snap(gamma.id);
  // One byte flipped in the pack where each chunk is (random bytes: no other snapshot holds them).
  const flip = (data: Buffer) => flipChunkByte(snapshotStoreDir(box.paths), data);
  flip(small);
  const refused = await raw(`/v1/snapshots/${sid}/files/small.bin`);
  t.equal(refused.status, 500, 'a file of one chunk: an error, not its bytes');
  t.match(
    await refused.json(),
    { error: 'ABX_ERR_INTERNAL', message: `internal error; the API log has what failed under request id ${refused.headers.get('x-request-id')}` },
    'a JSON error, nothing of the file; its message names the request id the log has',
  );
  await t.rejects(
    openSnapshotFile(box.server.app.agentbox.snapshots, sid, 'small.bin'),
    /chunk \w+ of "small\.bin" read from pack \S+ does not match its sha256: the store is damaged/,
  );

  flip(large.subarray(1024 * 1024, 2 * 1024 * 1024));
  const res = await raw(`/v1/snapshots/${sid}/files/large.bin`);
  t.equal(res.status, 200, 'the first chunk is whole, so the answer starts');
  const got: Buffer[] = [];
  const cut = await (async () => {
    try {
      for await (const part of res.body!) got.push(Buffer.from(part));
    } catch (err) {
      return err;
    }
    return undefined;
  })();
  t.ok(cut, 'the answer is cut at the damaged chunk, never completed');
  const read = Buffer.concat(got);
  t.ok(read.length < 2 * 1024 * 1024, `no byte of the damaged chunk was sent (${read.length} bytes read)`);
  t.ok(read.equals(large.subarray(0, read.length)), 'what was sent is the file as it was');
});

t.test("a chunk damaged in its pack is never packed into a directory's tar: refused before the answer, or the answer cut before it", async (t) => {
  const delta = await spawn('delta');
  const small = randomBytes(5000);
  const large = randomBytes(2 * 1024 * 1024 + 9);
  await mkdir(path.join(dirOf(delta), 'one'));
  await mkdir(path.join(dirOf(delta), 'two'));
  await writeFile(path.join(dirOf(delta), 'one/small.bin'), small);
  await writeFile(path.join(dirOf(delta), 'two/large.bin'), large);
  const sid = await snap(delta.id);
  const tarOf = async (dir: string) => {
    const res = await raw(`/v1/snapshots/${sid}/files/${dir}?format=tar`);
    const got: Buffer[] = [];
    let cut: unknown;
    try {
      for await (const part of res.body!) got.push(Buffer.from(part));
    } catch (err) {
      cut = err;
    }
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.concat(got), cut };
  };
  const whole = { one: await tarOf('one'), two: await tarOf('two') };
  t.equal(whole.two.status, 200);
  const secondChunkAt = whole.two.body.indexOf(large.subarray(1024 * 1024, 1024 * 1024 + 64));
  t.ok(secondChunkAt > 0, 'the whole tar holds the second chunk');

  const flip = (data: Buffer) => flipChunkByte(snapshotStoreDir(box.paths), data);
  flip(small);
  const refused = await tarOf('one');
  t.equal(refused.status, 500, 'a tar whose first batch holds the damaged chunk: an error, not a tar');
  t.match(JSON.parse(refused.body.toString('utf8')), { error: 'ABX_ERR_INTERNAL' }, 'a JSON error, nothing of the tar');

  flip(large.subarray(1024 * 1024, 2 * 1024 * 1024));
  const cut = await tarOf('two');
  t.equal(cut.status, 200, 'the first chunk is whole, so the answer starts');
  t.ok(cut.cut, 'the answer is cut at the damaged chunk, never completed');
  t.ok(cut.body.length <= secondChunkAt, `no byte of the damaged chunk was sent (${cut.body.length} bytes read, the chunk at ${secondChunkAt})`);
  t.ok(cut.body.equals(whole.two.body.subarray(0, cut.body.length)), 'what was sent is the tar as it would be');

  // Undamaged again (the same byte flipped back), each tar is whole again: the check refuses the damage, not the file.
  flip(small);
  flip(large.subarray(1024 * 1024, 2 * 1024 * 1024));
  t.ok((await tarOf('one')).body.equals(whole.one.body), 'the first tar again, byte for byte');
  const again = await tarOf('two');
  t.notOk(again.cut, 'not cut');
  t.ok(again.body.equals(whole.two.body), 'the second tar again, byte for byte');
});

t.test("a snapshot's names that are not UTF-8 are reached by their bytes percent-encoded", async (t) => {
  const epsilon = await spawn('epsilon');
  const odd = (name: string, byte: number, rest = '') => Buffer.concat([Buffer.from(path.join(dirOf(epsilon), name)), Buffer.of(byte), Buffer.from(rest)]);
  writeFileSync(odd('caf', 0xe9, '.txt'), 'latin-1 name\n');
  mkdirSync(odd('d', 0xff));
  writeFileSync(odd('d', 0xff, '/inner'), 'inside\n');
  const sid = await snap(epsilon.id);
  await rm(dirOf(epsilon), { recursive: true, force: true });
  const file = await raw(`/v1/snapshots/${sid}/files/caf%E9.txt`);
  t.equal(file.status, 200);
  t.equal(await file.text(), 'latin-1 name\n', 'a file named caf\\xe9.txt read from the store by its bytes');
  t.same(
    ((await box.api(`/v1/snapshots/${sid}/files/d%FF?list`)).json['entries'] as Array<{ name: string }>).map((e) => e.name),
    ['inner'],
    'a directory named by such bytes listed',
  );
  t.equal(await (await raw(`/v1/snapshots/${sid}/files/d%FF/inner`)).text(), 'inside\n');
  t.match(await box.api(`/v1/snapshots/${sid}/files/caf%E8.txt`), { status: 404 }, 'other bytes name nothing');
  const tar = Buffer.from(await (await raw(`/v1/snapshots/${sid}/files/d%FF?format=tar`)).arrayBuffer());
  t.same(execFileSync('tar', ['-tf', '-'], { input: tar, encoding: 'utf8' }).trim().split('\n'), ['inner'], "that directory's tar");
});

t.test('large entries files are read in worker threads, with the same answers', async (t) => {
  const work = await mkdtemp(path.join(tmpdir(), 'agentbox-inspect-'));
  t.teardown(() => rm(work, { recursive: true, force: true }));
  const dir = path.join(work, 'ws');
  await mkdir(path.join(dir, 'a'), { recursive: true });
  for (let i = 0; i < 50; i++) await writeFile(path.join(dir, `a/f${i}.txt`), `file ${i}\n`);
  const stores = [0, undefined].map(
    (inline) => new SnapshotStore({ dir: path.join(work, `store-${inline}`), logger: pino({ level: 'silent' }), inlineEntriesBytes: inline }),
  );
  for (const s of stores) await s.open();
  t.teardown(() => Promise.all(stores.map((s) => s.close())));
  const capture = async (store: SnapshotStore) => {
    const handle = await open(dir, DIR_FLAGS);
    try {
      return (await store.create({ rootFd: handle.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_w', name: 'w', cwd: 'ws' } })).id;
    } finally {
      await handle.close();
    }
  };
  const firsts: string[] = [];
  for (const s of stores) firsts.push(await capture(s));
  await writeFile(path.join(dir, 'a/f7.txt'), 'changed\n');
  await rename(path.join(dir, 'a/f8.txt'), path.join(dir, 'a/g8.txt'));
  const seconds: string[] = [];
  for (const s of stores) seconds.push(await capture(s));
  const answers = await Promise.all(
    stores.map(async (store, i) => ({
      diff: await diffSnapshots(store, firsts[i]!, seconds[i]!, 2),
      page: await diffSnapshots(store, firsts[i]!, seconds[i]!, 2, 'a/f7.txt'),
      list: (await browseSnapshot(store, seconds[i]!, 'a', true)).children?.length,
      file: await (async () => {
        const { body } = await openSnapshotFile(store, seconds[i]!, 'a/f7.txt');
        const parts: Buffer[] = [];
        for await (const p of body) parts.push(p as Buffer);
        return Buffer.concat(parts).toString();
      })(),
    })),
  );
  t.same(answers[0], answers[1], 'in a thread as on the caller’s');
  t.same(answers[0]!.diff.counts, { added: 1, deleted: 1, modified: 1 });
  t.same(
    answers[0]!.diff.changes.map((c) => `${c.change} ${c.path}`),
    ['modified a/f7.txt', 'deleted a/f8.txt'],
    'cut at 2',
  );
  t.same(
    answers[0]!.page.changes.map((c) => `${c.change} ${c.path}`),
    ['deleted a/f8.txt', 'added a/g8.txt'],
    'the page after a/f7.txt',
  );
  t.equal(answers[0]!.page.truncated, false);
  t.equal(answers[0]!.list, 50);
  t.equal(answers[0]!.file, 'changed\n');
});

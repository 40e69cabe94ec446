// Workspace files on a real box with real sandboxed agents: round trips, atomic replace, tar both ways, and the adversarial paths and tars.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { chmod, chown, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_LIST_ENTRIES } from '../../management-api/src/workspace-files/file-read.js';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';
import { ustarHeader, ustarPadding } from '../helpers/ustar.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

type Agent = { id: string; pid: number };
const spawn = async (name: string, script: string): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body: { name, command: '/bin/sh', args: ['-c', script] } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';
const raw = (p: string, init: RequestInit & { auth?: string } = {}) =>
  fetch(box.server.apiUrl + p, { ...init, headers: { authorization: `Bearer ${init.auth ?? box.key}`, ...(init.headers as Record<string, string>) } });

// A GET sent as written: fetch would normalise "..", "." and "%2e%2e" before they reach the box.
const rawGet = (p: string): Promise<{ status: number; error: string; message: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(box.server.apiUrl);
    const req = http.request({ host: url.hostname, port: url.port, path: p, headers: { authorization: `Bearer ${box.key}` } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        const body = JSON.parse(text) as { error: string; message: string };
        resolve({ status: res.statusCode ?? 0, error: body.error, message: body.message });
      });
    });
    req.on('error', reject);
    req.end();
  });

// A tar built byte by byte here (not by the code under test), so any name or type can be written.
const header = ustarHeader;
const file = (name: string, content: string, mode = 0o644) => {
  const data = Buffer.from(content);
  return Buffer.concat([header(name, '0', data.length, mode), data, ustarPadding(data.length)]);
};
const tar = (...parts: Buffer[]) => Buffer.concat([...parts, Buffer.alloc(1024)]);

/** How many of this process's descriptors are open on a path under `prefix`. */
async function descriptorsUnder(prefix: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir('/proc/self/fd')) if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')).startsWith(prefix)) n++;
  return n;
}

/**
 * Wait until no descriptor of this process is open under `prefix`. Polled, not compared with a
 * count taken earlier: the box's disk accounting walks the agents' directories every few seconds in
 * this process, and a count taken during one of its walks includes the walk's own descriptors.
 */
async function noDescriptorsUnder(prefix: string, what: string): Promise<void> {
  await waitFor(
    what,
    async () => {
      const open = await descriptorsUnder(prefix);
      if (open > 0) throw new Error(`${open} still open under ${prefix}`);
      return true;
    },
    10_000,
  );
}

let alpha: Agent;
let beta: Agent;
let ws: string;
t.before(async () => {
  alpha = await spawn(
    'alpha',
    'echo made-by-agent > out.txt && mkdir -p sub && echo deep > sub/deep.txt && ln -s /etc escape && ln -s out.txt inner && touch ready && exec sleep 600',
  );
  beta = await spawn('beta', 'exec sleep 600');
  ws = path.join(box.paths.workspaceDir, 'alpha');
  await waitFor('the agent wrote its files', () =>
    stat(path.join(ws, 'ready')).then(
      () => true,
      () => false,
    ),
  );
});

t.test('read what the agent wrote, list a directory', async (t) => {
  const res = await raw(`/v1/agents/${alpha.id}/files/out.txt`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'made-by-agent\n');
  t.ok(res.headers.get('etag'));
  const list = await box.api(`/v1/agents/${alpha.id}/files/?list`);
  t.equal(list.status, 200);
  const entries = list.json['entries'] as Array<{ name: string; type: string; target?: string }>;
  t.match(
    entries.find((e) => e.name === 'escape'),
    { type: 'symlink', target: '/etc' },
    'a link is listed with its target',
  );
  t.match(
    entries.find((e) => e.name === 'sub'),
    { type: 'dir' },
  );
  t.match(
    entries.find((e) => e.name === 'out.txt'),
    { type: 'file', size: 14 },
  );
});

t.test('a directory of more names than a listing answers: the first by name, cut, and said to be', async (t) => {
  // Two and a half times the most a listing answers, so the stream is cut back twice on its way; names in no order on disk.
  const dir = path.join(ws, 'crowded');
  await mkdir(dir);
  const names = Array.from({ length: MAX_LIST_ENTRIES * 2.5 }, (_, i) => `n${((i * 7919) % (MAX_LIST_ENTRIES * 2.5)).toString(36)}`);
  for (const name of names) writeFileSync(path.join(dir, name), '');
  const list = await box.api(`/v1/agents/${alpha.id}/files/crowded?list`);
  t.equal(list.status, 200);
  const listed = (list.json['entries'] as Array<{ name: string }>).map((e) => e.name);
  t.equal(list.json['truncated'], true, 'the listing says it was cut');
  t.same(listed, [...names].sort().slice(0, MAX_LIST_ENTRIES), `the first ${MAX_LIST_ENTRIES} names in sort order`);
  await rm(dir, { recursive: true });
});

t.test('put: created, replaced atomically, owned by the agent, mode sanitised, preconditions', async (t) => {
  const put = await raw(`/v1/agents/${alpha.id}/files/new/dir/a.txt`, { method: 'PUT', body: 'one', headers: { 'x-file-mode': '4755' } });
  t.equal(put.status, 201);
  const etag = put.headers.get('etag')!;
  const st = await stat(path.join(ws, 'new/dir/a.txt'));
  t.equal(st.mode & 0o7777, 0o755, 'setuid dropped');
  const dirSt = await stat(ws);
  t.equal(st.uid, dirSt.uid, "the file belongs to the agent's uid");
  t.equal((await stat(path.join(ws, 'new'))).uid, dirSt.uid, 'so do the directories made for it');
  t.equal((await raw(`/v1/agents/${alpha.id}/files/new/dir/a.txt`, { method: 'PUT', body: 'two', headers: { 'if-none-match': '*' } })).status, 412);
  t.equal((await raw(`/v1/agents/${alpha.id}/files/new/dir/a.txt`, { method: 'PUT', body: 'two', headers: { 'if-match': '"nope"' } })).status, 412);
  const replaced = await raw(`/v1/agents/${alpha.id}/files/new/dir/a.txt`, { method: 'PUT', body: 'two', headers: { 'if-match': etag } });
  t.equal(replaced.status, 200);
  t.equal(await readFile(path.join(ws, 'new/dir/a.txt'), 'utf8'), 'two');
  t.notOk((await readFile(path.join(ws, 'new/dir'), { encoding: 'utf8' }).catch(() => '')).includes('.tmp'), 'no temporary file left');
  t.same(execFileSync('ls', ['-A', path.join(ws, 'new/dir')], { encoding: 'utf8' }).trim(), 'a.txt', 'no temporary file left');
  // Larger than the most a write holds at once (1 MiB), in the request's own chunks: every byte in its place.
  const big = randomBytes(3 * 1024 * 1024 + 17);
  t.equal((await raw(`/v1/agents/${alpha.id}/files/new/big.bin`, { method: 'PUT', body: big })).status, 201);
  t.ok((await readFile(path.join(ws, 'new/big.bin'))).equals(big), 'a 3 MiB body is written byte for byte');
});

t.test('adversarial paths: .., encoded .., absolute, NUL, links in the path', async (t) => {
  for (const p of ['../beta/x', 'sub/../../x', '%2e%2e/x', 'sub/%2E%2E/%2e%2e/x', '/etc/passwd', 'a%00b', 'a//b', './out.txt']) {
    t.match(await rawGet(`/v1/agents/${alpha.id}/files/${p}`), { status: 400, error: 'ABX_ERR_FILE_PATH' }, `GET ${p} refused`);
  }
  t.match(
    await box.api(`/v1/agents/${alpha.id}/files/escape/passwd`),
    { status: 400, json: { error: 'ABX_ERR_FILE_PATH', message: /symbolic link/ } },
    'GET through a link',
  );
  t.match(await box.api(`/v1/agents/${alpha.id}/files/escape`), { status: 409, json: { error: 'ABX_ERR_FILE_TYPE' } }, 'GET of a link is refused');
  t.match(await box.api(`/v1/agents/${alpha.id}/files/inner`), { status: 409 }, 'even one pointing inside');
  t.equal((await raw(`/v1/agents/${alpha.id}/files/escape/pwned`, { method: 'PUT', body: 'x' })).status, 400, 'PUT through a link');
  t.equal((await raw(`/v1/agents/${alpha.id}/files/escape`, { method: 'PUT', body: 'x' })).status, 409, 'PUT over a link is refused');
  t.equal((await raw(`/v1/agents/${alpha.id}/files/escape/passwd`, { method: 'DELETE' })).status, 400, 'DELETE through a link');
  t.ok(await stat('/etc/passwd'));
  for (const query of ['list', 'format=tar']) {
    t.match(
      await box.api(`/v1/agents/${alpha.id}/files/escape?${query}`),
      { status: 409, json: { error: 'ABX_ERR_FILE_TYPE', message: /"escape" is a symbolic link, not a directory: links are never followed/ } },
      `?${query} of a link: the link itself is named, and not followed`,
    );
    t.match(
      await box.api(`/v1/agents/${alpha.id}/files/escape/etc?${query}`),
      { status: 400, json: { error: 'ABX_ERR_FILE_PATH', message: /passes through a symbolic link/ } },
      `?${query} below a link: passes through it`,
    );
  }
  await mkdir(path.join(ws, 'fifo-dir'), { recursive: true });
  execFileSync('mkfifo', [path.join(ws, 'fifo-dir/pipe')]);
  t.match(await box.api(`/v1/agents/${alpha.id}/files/fifo-dir/pipe`), { status: 409, json: { error: 'ABX_ERR_FILE_TYPE' } }, 'a FIFO is never opened');
  execFileSync('ln', ['/etc/hostname', path.join(ws, 'hard')]);
  t.match(await box.api(`/v1/agents/${alpha.id}/files/hard`), { status: 409, json: { message: /hard links/ } }, 'a hard link to a file the agent does not own');
  // A files path's escapes are a name's bytes (not UTF-8: no such file here); an overlong "..", %c0%ae%c0%ae, is four bytes of a name, never "..".
  for (const odd of ['%FF', '%c0%ae%c0%ae/x', '%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd', '%2e%2e%2f%FF'])
    t.match(await rawGet(`/v1/agents/${alpha.id}/files/${odd}`), { status: odd.startsWith('%2e') ? 400 : 404 }, `${odd}: a name looked up, or ".." refused`);
  t.match(
    await rawGet(`/v1/agents/${alpha.id}/files/%2e%2e%2f%FF`),
    { error: 'ABX_ERR_FILE_PATH', message: /must not contain "\.\." segments/ },
    'an encoded ".." beside a byte that is not UTF-8 is still ".."',
  );
  // Elsewhere a URL that does not decode is refused, in the uniform shape, saying where other bytes are taken.
  for (const bad of [`/v1/agents/%FF`, `/v1/agents/${alpha.id}%FF/files/x`, `/v1/beads/%c0%ae`])
    t.match(
      await rawGet(bad),
      { status: 400, error: 'ABX_ERR_BAD_REQUEST', message: /percent-escapes must decode as UTF-8 \(only a files route's path may hold other bytes/ },
      `${bad}: the uniform error shape`,
    );
  // A trailing "/" names a directory: never a file written or read under it.
  const slashed = await raw(`/v1/agents/${alpha.id}/files/newf/`, { method: 'PUT', body: 'x' });
  t.match(await slashed.json(), { error: 'ABX_ERR_FILE_PATH', message: /ends with "\/", which names a directory/ });
  await t.rejects(lstat(path.join(ws, 'newf')), 'nothing written');
  t.match(await box.api(`/v1/agents/${alpha.id}/files/out.txt/`), {
    status: 409,
    json: { error: 'ABX_ERR_FILE_TYPE', message: /"out\.txt" is not a directory/ },
  });
  t.match(
    await box.api(`/v1/agents/${alpha.id}/files/${'a'.repeat(5000)}`),
    { status: 400, json: { error: 'ABX_ERR_FILE_PATH', message: /longer than 4096 bytes/ } },
    'a path too long is refused as a path, with the reason',
  );
});

t.test('delete: a file, a link (not its target), a tree with a link to outside', async (t) => {
  await mkdir(path.join(ws, 'tree/inner'), { recursive: true });
  await writeFile(path.join(ws, 'tree/inner/f'), 'x');
  await symlink('/etc', path.join(ws, 'tree/inner/etc-link'));
  t.match(await box.api(`/v1/agents/${alpha.id}/files/tree`, { method: 'DELETE' }), { status: 409, json: { message: /not empty/ } });
  t.match(await box.api(`/v1/agents/${alpha.id}/files/tree?recursive`, { method: 'DELETE' }), { status: 200, json: { removed: 4 } });
  t.ok(await stat('/etc/hostname'), 'the link target survives');
  await symlink('/etc/hostname', path.join(ws, 'lnk'));
  t.equal((await box.api(`/v1/agents/${alpha.id}/files/lnk`, { method: 'DELETE' })).status, 200);
  t.ok(await stat('/etc/hostname'));
  t.equal((await box.api(`/v1/agents/${alpha.id}/files/lnk`, { method: 'DELETE' })).status, 404);
});

/** Every entry under `dir` as latin1 text (one character per byte, so any name compares exactly), a link with its target, sorted. */
async function bytesTree(dir: string | Buffer, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir, { encoding: 'buffer' })) {
    const full = Buffer.concat([Buffer.from(dir), Buffer.from('/'), name]);
    const rel = `${prefix}${name.toString('latin1')}`;
    const st = await lstat(full);
    if (st.isSymbolicLink()) out.push(`${rel} -> ${(await readlink(full, { encoding: 'buffer' })).toString('latin1')}`);
    else if (st.isDirectory()) out.push(`${rel}/`, ...(await bytesTree(full, `${rel}/`)));
    else out.push(`${rel} (${(await readFile(full)).toString('latin1')})`);
  }
  return out.sort();
}

t.test(
  'names that are not UTF-8: listed escaped, reached by their bytes percent-encoded, kept byte for byte by tar both ways, removed by a recursive delete',
  async (t) => {
    const dir = path.join(ws, 'bytes');
    await mkdir(dir);
    // a\xffb: a byte no UTF-8 decoder keeps (listed as the lone surrogate U+DCFF in its place).
    const odd = Buffer.concat([Buffer.from(`${dir}/a`), Buffer.of(0xff), Buffer.from('b')]);
    writeFileSync(odd, 'odd\n');
    await mkdir(Buffer.concat([odd, Buffer.from('-dir')]));
    writeFileSync(Buffer.concat([odd, Buffer.from('-dir/inner')]), 'x');
    // Longer than a tar header's 100-byte name field, an odd byte past it.
    writeFileSync(Buffer.concat([odd, Buffer.from('-dir/'), Buffer.from('n'.repeat(120)), Buffer.of(0xe9)]), 'long');
    await symlink(Buffer.concat([Buffer.from('a'), Buffer.of(0xfe)]), path.join(dir, 'odd-target'));
    await symlink(Buffer.concat([Buffer.from('t'.repeat(150)), Buffer.of(0xfe)]), Buffer.concat([odd, Buffer.from('-dir/long-target')]));
    await writeFile(path.join(dir, 'plain'), 'plain\n');
    const list = await box.api(`/v1/agents/${alpha.id}/files/bytes?list`);
    t.same(
      (list.json['entries'] as Array<{ name: string; target?: string }>).map((e) => [e.name, e.target]),
      [
        ['a\uDCFFb', undefined],
        ['a\uDCFFb-dir', undefined],
        ['odd-target', 'a\uDCFE'],
        ['plain', undefined],
      ],
      'each name listed, its odd bytes escaped, a link target too',
    );
    const before = await bytesTree(dir);
    t.equal(before.length, 7);

    const res = await raw(`/v1/agents/${alpha.id}/files/bytes?format=tar`);
    t.equal(res.status, 200);
    const tarBytes = Buffer.from(await res.arrayBuffer());
    const unpacked = await mkdtemp(path.join(tmpdir(), 'agentbox-odd-names-'));
    t.teardown(() => rm(unpacked, { recursive: true, force: true }));
    execFileSync('tar', ['-xf', '-', '-C', unpacked], { input: tarBytes });
    t.same(await bytesTree(unpacked), before, 'GNU tar unpacks every name and link target byte for byte');

    const back = await raw(`/v1/agents/${alpha.id}/files/bytes-back`, { method: 'POST', body: tarBytes, headers: { 'content-type': 'application/x-tar' } });
    t.equal(back.status, 200, await back.clone().text());
    t.same(await bytesTree(path.join(ws, 'bytes-back')), before, "the box's own download uploaded again: the same bytes");

    // GNU tar's default format holds such names as bytes (in the header, or a long-name record).
    const gnu = execFileSync('tar', ['--format=gnu', '-cf', '-', '-C', unpacked, '.']);
    const up = await raw(`/v1/agents/${alpha.id}/files/bytes-gnu`, { method: 'POST', body: gnu, headers: { 'content-type': 'application/x-tar' } });
    t.equal(up.status, 200, await up.clone().text());
    t.same(await bytesTree(path.join(ws, 'bytes-gnu')), before, 'a GNU tar upload: the same bytes');

    // Its pax format puts the bytes in a pax record, which the reader decodes as UTF-8: refused rather than renamed.
    const pax = execFileSync('tar', ['--format=posix', '-cf', '-', '-C', unpacked, '.']);
    const refused = await raw(`/v1/agents/${alpha.id}/files/bytes-pax`, { method: 'POST', body: pax, headers: { 'content-type': 'application/x-tar' } });
    t.equal(refused.status, 400);
    t.match(await refused.json(), { error: 'ABX_ERR_TAR_REFUSED', message: /pax record gives a name that is not UTF-8 .*--format=gnu/ });
    t.equal(await lstat(path.join(ws, 'bytes-pax')).catch(() => undefined), undefined, 'nothing was written');

    // Each such name is a path of its own: its bytes percent-encoded, read, listed, written and removed.
    const got = await raw(`/v1/agents/${alpha.id}/files/bytes/a%FFb`);
    t.equal(got.status, 200);
    t.equal(await got.text(), 'odd\n', 'a file named a\\xffb read by its bytes');
    t.same(
      ((await box.api(`/v1/agents/${alpha.id}/files/bytes/a%ffb-dir?list`)).json['entries'] as Array<{ name: string }>).map((e) => e.name),
      ['inner', 'long-target', `${'n'.repeat(120)}\uDCE9`],
      'a directory named by such bytes listed',
    );
    t.equal(
      await (await raw(`/v1/agents/${alpha.id}/files/bytes/a%FFb-dir/${'n'.repeat(120)}%E9`)).text(),
      'long',
      'below it, and a name ending in such a byte',
    );
    const put = await raw(`/v1/agents/${alpha.id}/files/bytes/new%FE%C3%A9`, { method: 'PUT', body: 'written\n' });
    t.equal(put.status, 201, await put.clone().text());
    t.equal(
      await readFile(Buffer.concat([Buffer.from(`${dir}/new`), Buffer.of(0xfe), Buffer.from('é')]), 'utf8'),
      'written\n',
      'a PUT made the file of those bytes (an odd byte, then UTF-8)',
    );
    t.match(await box.api(`/v1/agents/${alpha.id}/files/bytes/new%FE%C3%A9`, { method: 'DELETE' }), { status: 200, json: { removed: 1 } });
    t.match(await box.api(`/v1/agents/${alpha.id}/files/bytes/odd-target%FE`), { status: 404 }, 'a name not there: 404');
    t.match(await box.api(`/v1/agents/${alpha.id}/files/bytes/a%FFb/x`), { status: 409 }, 'through a file: 409, as any other name');

    for (const name of ['bytes', 'bytes-back', 'bytes-gnu'])
      t.match(
        await box.api(`/v1/agents/${alpha.id}/files/${name}?recursive`, { method: 'DELETE' }),
        { status: 200, json: { removed: 8 } },
        `a recursive delete removes ${name} whole`,
      );
    t.equal(await lstat(dir).catch(() => undefined), undefined, 'the directory is gone');
  },
);

t.test('tar both ways', async (t) => {
  const res = await raw(`/v1/agents/${alpha.id}/files/sub?format=tar`);
  t.equal(res.status, 200);
  const bytes = Buffer.from(await res.arrayBuffer());
  const listing = execFileSync('tar', ['-tvf', '-'], { input: bytes, encoding: 'utf8' });
  t.match(listing, /deep\.txt/);
  const up = await raw(`/v1/agents/${alpha.id}/files/uploaded`, {
    method: 'POST',
    body: tar(header('d/', '5', 0, 0o755), file('d/f.txt', 'hello', 0o4755), header('d/rel', '2', 0, 0o777, 'f.txt')),
    headers: { 'content-type': 'application/x-tar' },
  });
  t.equal(up.status, 200, await up.clone().text());
  t.match(await up.json(), { files: 1, dirs: 1, symlinks: 1, bytes: 5 });
  t.equal(await readFile(path.join(ws, 'uploaded/d/f.txt'), 'utf8'), 'hello');
  t.equal((await stat(path.join(ws, 'uploaded/d/f.txt'))).mode & 0o7777, 0o755, 'setuid dropped');
  t.equal(await readlink(path.join(ws, 'uploaded/d/rel')), 'f.txt');
  t.equal((await stat(path.join(ws, 'uploaded/d/f.txt'))).uid, (await stat(ws)).uid, "extracted files are the agent's");
  t.same(execFileSync('ls', ['-A', path.join(ws, 'uploaded')], { encoding: 'utf8' }).trim(), 'd', 'no staging directory left');

  // X-File-Mode: the directory's own bits when the upload makes it (the owner keeping every right), never an existing one's.
  const upWithMode = (dir: string, mode: string) =>
    raw(`/v1/agents/${alpha.id}/files/${dir}`, {
      method: 'POST',
      body: tar(file('x.txt', 'x')),
      headers: { 'content-type': 'application/x-tar', 'x-file-mode': mode },
    });
  t.equal((await upWithMode('moded', '0750')).status, 200);
  t.equal((await stat(path.join(ws, 'moded'))).mode & 0o7777, 0o750, 'a directory the upload made gets the mode');
  t.equal((await upWithMode('moded/inner', '4055')).status, 200);
  t.equal((await stat(path.join(ws, 'moded/inner'))).mode & 0o7777, 0o755, 'setuid dropped, the owner keeps every right');
  t.equal((await upWithMode('moded', '0700')).status, 200);
  t.equal((await stat(path.join(ws, 'moded'))).mode & 0o7777, 0o750, "an existing directory's mode is left as it is");
  t.match(await (await upWithMode('bad-mode', 'rwx')).json(), { error: 'ABX_ERR_VALIDATION' }, 'a mode that is not octal is refused');
  t.equal(await lstat(path.join(ws, 'bad-mode')).catch(() => undefined), undefined, 'and nothing made');
});

t.test('tar download: every file byte for byte, large ones too, links as links, FIFOs and foreign hard links left out', async (t) => {
  const root = path.join(ws, 'packed');
  // Files in two directories, with sizes on both sides of the limit up to which a file is read whole (1 MiB): a larger one goes in 1 MiB steps, the last one short.
  const files = new Map<string, Buffer>();
  for (let i = 0; i < 40; i++) {
    const size = i % 10 === 0 ? 2_500_000 + i : 100 + i * 997;
    const data = Buffer.alloc(size, `file ${i} `);
    data.writeUInt32BE(i, 0);
    files.set(`${i % 2 ? 'a' : 'b/c'}/f${String(i).padStart(2, '0')}.bin`, data);
  }
  files.set('empty', Buffer.alloc(0));
  // Names a plain header cannot hold (pax records): longer than 100 bytes in all and in one segment, and not ASCII.
  files.set(`long/${'a-long-segment-'.repeat(12)}.txt`, Buffer.from('long name\n'));
  files.set('ünïcødé/名前.txt', Buffer.from('not ascii\n'));
  for (const [rel, data] of files) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), data);
  }
  await chmod(path.join(root, 'empty'), 0o640);
  await utimes(path.join(root, 'empty'), 1_600_000_000, 1_600_000_000);
  await symlink('/etc/passwd', path.join(root, 'a/to-passwd'));
  const farTarget = `${'../'.repeat(2)}${'far-away-target-'.repeat(8)}`;
  await symlink(farTarget, path.join(root, 'a/far'));
  execFileSync('mkfifo', [path.join(root, 'b/pipe')]);
  execFileSync('ln', ['/etc/hostname', path.join(root, 'b/hostname')]);
  const served = async () => {
    const text = await (await fetch(box.server.metricsUrl)).text();
    return Number(/^agentbox_http_requests_total\{method="GET",route="\/v1\/agents\/:id\/files\/\*",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
  };
  const servedBefore = await served();
  const res = await raw(`/v1/agents/${alpha.id}/files/packed?format=tar`);
  t.equal(res.status, 200);
  t.match(res.headers.get('x-request-id'), /./, "the gate's headers are sent with the tar");
  const out = path.join(box.paths.runDir, 'unpacked');
  await mkdir(out, { recursive: true });
  execFileSync('tar', ['-xf', '-', '-C', out], { input: Buffer.from(await res.arrayBuffer()) });
  // Written batch by batch past fastify's send, the download is still counted as any request is.
  await waitFor('the download to be counted', async () => (await served()) > servedBefore);
  for (const [rel, data] of files) t.ok(data.equals(await readFile(path.join(out, rel))), `${rel} (${data.length} bytes) as written`);
  t.equal(await readlink(path.join(out, 'a/to-passwd')), '/etc/passwd', 'a link is packed as a link');
  t.equal(await readlink(path.join(out, 'a/far')), farTarget, 'a target longer than a plain header holds too');
  const empty = await stat(path.join(out, 'empty'));
  t.same({ mode: empty.mode & 0o777, mtime: empty.mtimeMs }, { mode: 0o640, mtime: 1_600_000_000_000 }, 'permission bits and mtime are kept');
  t.equal(await lstat(path.join(out, 'b/pipe')).catch(() => undefined), undefined, 'a FIFO is left out (and never opened: the download ended)');
  t.equal(await lstat(path.join(out, 'b/hostname')).catch(() => undefined), undefined, "a hard link to another user's file is left out");
  const listing = execFileSync('find', [out, '-type', 'f'], { encoding: 'utf8' }).trim().split('\n');
  t.equal(listing.length, files.size, 'nothing else');
});

t.test('tar downloads at once each get their own directory, and one called off midway leaves no descriptor open', async (t) => {
  const one = path.join(ws, 'many-one');
  const two = path.join(ws, 'many-two');
  await mkdir(one, { recursive: true });
  await mkdir(two, { recursive: true });
  // Twice the worker's window and more than a socket holds, so the pack is mid-walk when the client goes.
  // Files over 1 MiB, so the walk is called off inside one it reads in steps.
  for (let i = 0; i < 12; i++) await writeFile(path.join(one, `big${i}.bin`), Buffer.alloc(2_500_000, `one ${i} `));
  await writeFile(path.join(two, 'only.txt'), 'two\n');
  // Descriptors of this process open on the agent's workspace (the pack's directories and files; sockets kept alive are not counted).
  await noDescriptorsUnder(ws, 'no descriptor open on the workspace before the downloads');
  const names = (bytes: Buffer) => execFileSync('tar', ['-tf', '-'], { input: bytes, encoding: 'utf8' }).trim().split('\n').sort();
  const download = async (dir: string) => Buffer.from(await (await raw(`/v1/agents/${alpha.id}/files/${dir}?format=tar`)).arrayBuffer());
  const both = await Promise.all([download('many-one'), download('many-two'), download('many-one'), download('many-two')]);
  t.same(names(both[0]!), Array.from({ length: 12 }, (_, i) => `big${i}.bin`).sort(), 'the first directory, whole');
  t.same(names(both[1]!), ['only.txt'], 'the second, alone');
  t.ok(both[0]!.equals(both[2]!) && both[1]!.equals(both[3]!), 'the same bytes each time');

  const controller = new AbortController();
  const res = await raw(`/v1/agents/${alpha.id}/files/many-one?format=tar`, { signal: controller.signal });
  const reader = res.body!.getReader();
  t.ok((await reader.read()).value, 'the download started');
  // Another one under way beside it, in the same worker, when the first is called off.
  const beside = (await raw(`/v1/agents/${alpha.id}/files/many-one?format=tar`)).body!.getReader();
  const besideChunks = [(await beside.read()).value!];
  controller.abort();
  await reader.read().catch(() => undefined);
  for (let r = await beside.read(); !r.done; r = await beside.read()) besideChunks.push(r.value);
  t.ok(Buffer.concat(besideChunks).equals(both[0]!), 'the download beside it goes on whole');
  await noDescriptorsUnder(ws, 'every descriptor of the called-off pack closed');
  t.pass('every descriptor of the called-off pack was closed');
  t.same(names(await download('many-two')), ['only.txt'], 'and the next download is whole');
});

t.test("a fifth tar download of one agent's workspace at once is refused (429, Retry-After); another agent's is not; one ended lets the next in", async (t) => {
  const held = path.join(ws, 'held');
  await mkdir(held, { recursive: true });
  // Far more than the worker's window and a socket hold: a download not read stays under way.
  for (let i = 0; i < 12; i++) await writeFile(path.join(held, `big${i}.bin`), Buffer.alloc(2_500_000, `held ${i} `));
  const going: AbortController[] = [];
  t.teardown(() => {
    for (const c of going) c.abort();
  });
  const start = async (who: Agent, dir: string) => {
    const controller = new AbortController();
    const res = await raw(`/v1/agents/${who.id}/files/${dir}?format=tar`, { signal: controller.signal });
    if (res.status === 200) {
      going.push(controller);
      // Under way: its first bytes are here, the rest wait for a reader.
      await res.body!.getReader().read();
    }
    return res;
  };
  for (let i = 0; i < 4; i++) t.equal((await start(alpha, 'held')).status, 200, `download ${i + 1} under way`);
  const refused = await start(alpha, 'held');
  t.equal(refused.status, 429, 'a fifth is refused');
  t.equal(refused.headers.get('retry-after'), '1', 'saying when to retry');
  t.match(await refused.json(), { error: 'ABX_ERR_RATE_LIMITED', message: /4 tar downloads going/ }, 'naming the limit');
  const plain = await raw(`/v1/agents/${alpha.id}/files/out.txt`);
  t.equal(await plain.text(), 'made-by-agent\n', 'a file is still served (only tars count)');
  const other = await raw(`/v1/agents/${beta.id}/files?format=tar`);
  t.equal(other.status, 200, "another agent's workspace is packed meanwhile");
  await other.arrayBuffer();
  going.shift()!.abort();
  // The called-off pack ends at its worker's next step: then a download is let in again.
  const next = await waitFor('a download let in once one has ended', async () => {
    const res = await start(alpha, 'held');
    return res.status === 200 ? res : undefined;
  });
  t.equal(next.status, 200, 'let in');
  // All called off, and ended (each pack's directory closed) before the next test downloads from this workspace.
  for (const c of going.splice(0)) c.abort();
  await noDescriptorsUnder(held, 'every download called off has ended');
});

t.test('adversarial tars: refused whole, nothing written', async (t) => {
  const cases: Array<[string, Buffer, string]> = [
    ['../ name', tar(file('ok.txt', 'x'), file('../evil.txt', 'x')), 'ABX_ERR_TAR_REFUSED'],
    ['nested ..', tar(file('ok.txt', 'x'), file('a/../../evil.txt', 'x')), 'ABX_ERR_TAR_REFUSED'],
    ['absolute name', tar(file('ok.txt', 'x'), file('/tmp/evil.txt', 'x')), 'ABX_ERR_TAR_REFUSED'],
    ['link out then file through it', tar(file('ok.txt', 'x'), header('l', '2', 0, 0o777, '../../..'), file('l/evil.txt', 'x')), 'ABX_ERR_TAR_REFUSED'],
    ['absolute link', tar(header('l', '2', 0, 0o777, '/etc')), 'ABX_ERR_TAR_REFUSED'],
    // Each reads as inside on its own; b climbs from wherever a leads: the workspace's parent.
    ['link chain climbing out', tar(header('a', '2', 0, 0o777, '..'), header('b', '2', 0, 0o777, 'a/..')), 'ABX_ERR_TAR_REFUSED'],
    ['.. after a name in a link', tar(file('ok.txt', 'x'), header('c', '2', 0, 0o777, './x/../../..')), 'ABX_ERR_TAR_REFUSED'],
    [
      'link inside then file through it',
      tar(file('ok.txt', 'x'), header('d', '5', 0, 0o755), header('l', '2', 0, 0o777, 'd'), file('l/evil.txt', 'x')),
      'ABX_ERR_TAR_REFUSED',
    ],
    ['hard link to /etc/passwd', tar(file('ok.txt', 'x'), header('pw', '1', 0, 0o644, '/etc/passwd')), 'ABX_ERR_TAR_REFUSED'],
    ['character device', tar(file('ok.txt', 'x'), header('null', '3')), 'ABX_ERR_TAR_REFUSED'],
    ['block device', tar(header('sda', '4')), 'ABX_ERR_TAR_REFUSED'],
    ['fifo', tar(header('p', '6')), 'ABX_ERR_TAR_REFUSED'],
    ['oversized entry', tar(file('ok.txt', 'x'), header('big', '0', 300 * 1024 * 1024)), 'ABX_ERR_FILE_TOO_LARGE'],
    ['not a tar', Buffer.alloc(1024, 7), 'ABX_ERR_TAR_REFUSED'],
    ['truncated', file('ok.txt', 'x'.repeat(2000)).subarray(0, 900), 'ABX_ERR_TAR_REFUSED'],
  ];
  for (const [what, body, code] of cases) {
    const res = await raw(`/v1/agents/${alpha.id}/files/adv`, { method: 'POST', body, headers: { 'content-type': 'application/x-tar' } });
    const json = (await res.json()) as { error: string; message: string };
    t.equal(json.error, code, `${what}: ${json.message}`);
    await t.rejects(lstat(path.join(ws, 'adv')), `${what}: nothing written, not even the directory made for it`);
  }
  // A refused write into a directory that is there keeps it, and what it held.
  await mkdir(path.join(ws, 'adv-there'));
  await writeFile(path.join(ws, 'adv-there', 'mine.txt'), 'kept');
  const into = await raw(`/v1/agents/${alpha.id}/files/adv-there/new/deeper`, {
    method: 'POST',
    body: cases[0]![1],
    headers: { 'content-type': 'application/x-tar' },
  });
  t.equal(into.status, 400);
  t.same(await readdir(path.join(ws, 'adv-there')), ['mine.txt'], 'only the directories the refused tar made are gone');
  const precondition = await raw(`/v1/agents/${alpha.id}/files/put-made/a/b.txt`, { method: 'PUT', body: 'x', headers: { 'if-match': '"nope"' } });
  t.equal(precondition.status, 412);
  await t.rejects(lstat(path.join(ws, 'put-made')), 'a refused PUT leaves no parent it made');
  await t.rejects(lstat('/tmp/evil.txt'));
  await t.rejects(lstat(path.join(box.paths.workspaceDir, 'evil.txt')));
});

t.test('nesting deeper than the box walks is refused on the way in: a path, a tar entry', async (t) => {
  const levels = (n: number) => Array.from({ length: n }, () => 'n').join('/');
  const put = await raw(`/v1/agents/${alpha.id}/files/${levels(MAX_TREE_DEPTH + 1)}/f.txt`, { method: 'PUT', body: 'x' });
  t.match(
    { status: put.status, json: await put.json() },
    { status: 400, json: { error: 'ABX_ERR_FILE_PATH', message: new RegExp(`nested more than ${MAX_TREE_DEPTH} directories deep`) } },
    'a file below the deepest level',
  );
  await t.rejects(lstat(path.join(ws, 'n')), 'nothing was made');
  const atLimit = await raw(`/v1/agents/${alpha.id}/files/${levels(MAX_TREE_DEPTH)}/f.txt`, { method: 'PUT', body: 'x' });
  t.equal(atLimit.status, 201, 'a file in the deepest level is written');
  // An upload into a deep directory: the entry's own levels count from the workspace, not from where it lands.
  const base = levels(MAX_TREE_DEPTH - 2);
  const body = tar(header('a/', '5', 0, 0o755), header('a/b/', '5', 0, 0o755), header('a/b/c/', '5', 0, 0o755));
  const res = await raw(`/v1/agents/${alpha.id}/files/${base}`, { method: 'POST', body, headers: { 'content-type': 'application/x-tar' } });
  t.match(
    await res.json(),
    { error: 'ABX_ERR_TAR_REFUSED', message: new RegExp(`"a/b/c" would be nested more than ${MAX_TREE_DEPTH} directories deep`) },
    'a directory entry below the deepest level',
  );
  await t.rejects(lstat(path.join(ws, base, 'a')), 'nothing of the tar was written');
  // A tree an agent nested deeper than that itself: its download fails before its first byte, with the status and the reason.
  await mkdir(path.join(ws, levels(MAX_TREE_DEPTH + 2)), { recursive: true });
  const deep = await raw(`/v1/agents/${alpha.id}/files/n?format=tar`);
  t.match(
    { status: deep.status, json: await deep.json() },
    { status: 413, json: { error: 'ABX_ERR_FILE_TOO_LARGE', message: new RegExp(`more than ${MAX_TREE_DEPTH} levels deep .*too deep to pack`) } },
    'a tar download of a tree nested too deep',
  );
  await rm(path.join(ws, 'n'), { recursive: true });
});

t.test('too many entries', async (t) => {
  const entry = header('d/', '5', 0, 0o755);
  const body = tar(...Array.from({ length: 100_001 }, () => entry));
  const res = await raw(`/v1/agents/${alpha.id}/files/many`, { method: 'POST', body, headers: { 'content-type': 'application/x-tar' } });
  t.match(await res.json(), { error: 'ABX_ERR_FILE_TOO_LARGE', message: /more than 100000 entries/ });
});

t.test("agent tokens: its own workspace, never another's", async (t) => {
  const ta = await tokenOf(alpha.pid);
  t.equal((await raw(`/v1/agents/${alpha.id}/files/out.txt`, { auth: ta })).status, 200, 'reads its own');
  t.equal((await raw(`/v1/agents/${alpha.id}/files/mine.txt`, { auth: ta, method: 'PUT', body: 'x' })).status, 201, 'writes its own');
  const other = await raw(`/v1/agents/${beta.id}/files/?list`, { auth: ta });
  t.equal(other.status, 403);
  t.match(await other.json(), { error: 'ABX_ERR_AGENT_SCOPE', message: /workspace files/ });
  t.equal((await raw(`/v1/agents/${beta.id}/files/x`, { auth: ta, method: 'PUT', body: 'x' })).status, 403);
  t.equal((await raw(`/v1/agents/${beta.id}/files/x`, { auth: ta, method: 'POST', body: tar(file('x', 'x')) })).status, 403);
  t.equal((await raw(`/v1/agents/${beta.id}/files/x`, { auth: ta, method: 'DELETE' })).status, 403);
  t.equal((await raw(`/v1/agents/${beta.id}/files/x`, { method: 'PUT', body: 'x' })).status, 201, 'the API key reaches every workspace');
});

t.test("an ended agent's files are still served", async (t) => {
  const done = await spawn('gamma', 'echo result > result.txt');
  await waitFor('gamma ended', async () => ((await box.api(`/v1/agents/${done.id}`)).json['agent'] as { state: string }).state !== 'running');
  const res = await raw(`/v1/agents/${done.id}/files/result.txt`);
  t.equal(res.status, 200);
  t.equal(await res.text(), 'result\n');
  t.equal((await raw('/v1/agents/agt_nope/files/x')).status, 404);
});

t.test("a tar download stops once it has read the agent's disk budget of holes in sparse files; within it, it is whole", async (t) => {
  // A 16 MiB budget, and two files of 12 MiB that take no disk (so the budget never sees them).
  const res = await box.api('/v1/agents', { body: { name: 'sparse', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '16m' } } });
  t.equal(res.status, 201);
  const sparse = res.json['agent'] as Agent;
  const dir = path.join(box.paths.workspaceDir, 'sparse');
  await mkdir(path.join(dir, 'one'), { recursive: true });
  for (const name of ['one/a.img', 'b.img']) execFileSync('truncate', ['-s', '12M', path.join(dir, name)]);
  const all = await raw(`/v1/agents/${sparse.id}/files?format=tar`);
  t.equal(all.status, 200, 'the download starts');
  await t.rejects(all.arrayBuffer(), 'and is cut off, not ended as if whole: 24 MiB of holes against a 16 MiB budget');
  const within = Buffer.from(await (await raw(`/v1/agents/${sparse.id}/files/one?format=tar`)).arrayBuffer());
  t.match(execFileSync('tar', ['-tvf', '-'], { input: within, encoding: 'utf8' }), /12582912 .* a\.img/, '12 MiB of holes is packed whole');
  await box.api(`/v1/agents/${sparse.id}?graceMs=0`, { method: 'DELETE' });
});

t.test("a tar download stops once hard links have it pack the agent's disk budget again; within it, each link is a whole file", async (t) => {
  // A 4 MiB budget and a 1 MiB file under 8 names: the budget counts it once, a download would pack it 8 times.
  const res = await box.api('/v1/agents', { body: { name: 'linker', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '4m' } } });
  t.equal(res.status, 201);
  const linker = res.json['agent'] as Agent;
  const dir = path.join(box.paths.workspaceDir, 'linker');
  await mkdir(path.join(dir, 'few'), { recursive: true });
  await writeFile(path.join(dir, 'one.bin'), Buffer.alloc(1024 * 1024, 3));
  // The agent's own file (a root box gives each agent a uid): one of another owner's with several links is left out instead.
  const { uid, gid } = await stat(dir);
  await chown(path.join(dir, 'one.bin'), uid, gid);
  for (let i = 0; i < 8; i++) execFileSync('ln', [path.join(dir, 'one.bin'), path.join(dir, `link-${i}.bin`)]);
  const all = await raw(`/v1/agents/${linker.id}/files?format=tar`);
  t.equal(all.status, 200, 'the download starts');
  await t.rejects(all.arrayBuffer(), 'and is cut off, not ended as if whole: 8 MiB packed again against a 4 MiB budget');
  await writeFile(path.join(dir, 'few/a.bin'), Buffer.alloc(1024 * 1024, 5));
  await chown(path.join(dir, 'few/a.bin'), uid, gid);
  execFileSync('ln', [path.join(dir, 'few/a.bin'), path.join(dir, 'few/b.bin')]);
  const within = Buffer.from(await (await raw(`/v1/agents/${linker.id}/files/few?format=tar`)).arrayBuffer());
  const out = path.join(box.paths.runDir, 'linked-out');
  await mkdir(out, { recursive: true });
  execFileSync('tar', ['-xf', '-', '-C', out], { input: within });
  for (const name of ['a.bin', 'b.bin'])
    t.ok((await readFile(path.join(out, name))).equals(Buffer.alloc(1024 * 1024, 5)), `${name}: one link packed again within the budget is whole`);
  await box.api(`/v1/agents/${linker.id}?graceMs=0`, { method: 'DELETE' });
});

t.test('a sparse file packed by tar -S is refused, naming it, in either of GNU tar forms: never written as its hole map', async (t) => {
  const local = await mkdtemp(path.join(tmpdir(), 'agentbox-sparse-'));
  t.teardown(() => rm(local, { recursive: true, force: true }));
  // 2 MiB with 4 KiB of data at the end: a hole GNU tar's -S records as a map.
  execFileSync('truncate', ['-s', '2M', path.join(local, 'holey.img')]);
  execFileSync('dd', ['if=/dev/urandom', `of=${path.join(local, 'holey.img')}`, 'bs=4096', 'count=1', 'seek=511', 'conv=notrunc'], { stdio: 'ignore' });
  await writeFile(path.join(local, 'plain.txt'), 'plain');
  for (const format of ['posix', 'gnu']) {
    const body = execFileSync('tar', [`--format=${format}`, '-cSf', '-', '-C', local, 'plain.txt', 'holey.img']);
    const res = await raw(`/v1/agents/${alpha.id}/files/sparse-${format}`, { method: 'POST', body, headers: { 'content-type': 'application/x-tar' } });
    t.equal(res.status, 400, format);
    const json = (await res.json()) as { error: string; message: string };
    t.match(
      json,
      { error: 'ABX_ERR_TAR_REFUSED', message: format === 'posix' ? /"holey\.img" is a sparse file as `tar -S` packs it/ : /sparse files/ },
      format,
    );
    await t.rejects(lstat(path.join(ws, `sparse-${format}`)), `${format}: nothing written`);
  }
  // Without -S the same tree goes up whole, the hole as zeros.
  const whole = execFileSync('tar', ['--format=posix', '-cf', '-', '-C', local, 'plain.txt', 'holey.img'], { maxBuffer: 16 << 20 });
  const res = await raw(`/v1/agents/${alpha.id}/files/sparse-whole`, { method: 'POST', body: whole, headers: { 'content-type': 'application/x-tar' } });
  t.equal(res.status, 200, await res.clone().text());
  t.ok((await readFile(path.join(ws, 'sparse-whole/holey.img'))).equals(await readFile(path.join(local, 'holey.img'))), 'the same bytes');
});

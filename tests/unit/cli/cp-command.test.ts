// `agentbox cp` as the installed bin against a real box with a real sandboxed agent: files and directories both ways, stdio, and what is refused.
import t from 'tap';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync, type CliResult } from '../../helpers/cli.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';

const ORCHESTRATOR = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
const work = await mkdtemp(path.join(tmpdir(), 'agentbox-cli-cp-'));
t.teardown(() => rm(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

const box = await startTestServer({ toml: ORCHESTRATOR, env: { PATH: '/usr/bin:/bin' } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
const cli = (...args: string[]) => runAgentboxAsync(['cp', ...target, ...args], { cwd: work, env });
/** The bin with `input` on its stdin. */
const cliWithInput = (input: string, ...args: string[]): Promise<CliResult> => runAgentboxAsync(['cp', ...target, ...args], { cwd: work, env, input });

const res = await box.api('/v1/agents', {
  body: {
    name: 'copier',
    command: '/bin/sh',
    args: [
      '-c',
      'echo made-by-agent > out.txt && mkdir -p tree/deep && echo leaf > tree/deep/leaf.txt && ln -s deep/leaf.txt tree/rel && mkdir evil && ln -s /etc evil/escape && touch ready && exec sleep 600',
    ],
  },
});
const agent = res.json['agent'] as { id: string };
const ws = path.join(box.paths.workspaceDir, 'copier');
await waitFor('the agent wrote its files', () =>
  stat(path.join(ws, 'ready')).then(
    () => true,
    () => false,
  ),
);

t.test('a file down, into a directory, to stdout; by name and by id prefix', async (t) => {
  const r = await cli('copier:out.txt', 'got.txt');
  t.equal(r.code, 0, r.stderr);
  t.equal(await readFile(path.join(work, 'got.txt'), 'utf8'), 'made-by-agent\n');
  await mkdir(path.join(work, 'into'));
  t.equal((await cli(`${agent.id.slice(0, 10)}:/out.txt`, 'into')).code, 0, 'an id prefix; a leading / is the workspace root');
  t.equal(await readFile(path.join(work, 'into/out.txt'), 'utf8'), 'made-by-agent\n', 'into an existing directory, under its own name');
  t.match(await cli('copier:out.txt', '-'), { code: 0, stdout: 'made-by-agent\n' });
});

t.test('a file whose name takes the 255 bytes a name may have comes down (its temporary name beside it fits too)', async (t) => {
  const name = '€'.repeat(85);
  await writeFile(path.join(ws, name), 'long name\n');
  await mkdir(path.join(work, 'long'));
  const r = await cli(`copier:${name}`, 'long');
  t.equal(r.code, 0, r.stderr);
  t.equal(await readFile(path.join(work, 'long', name), 'utf8'), 'long name\n');
  t.same(await readdir(path.join(work, 'long')), [name], 'no temporary file left');
});

t.test('a file up, from a path and from stdin; --json', async (t) => {
  await writeFile(path.join(work, 'up.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  const r = await cli('--json', 'up.sh', 'copier:bin/up.sh');
  t.equal(r.code, 0, r.stderr);
  t.same(JSON.parse(r.stdout), { kind: 'file', from: 'up.sh', to: 'copier:bin/up.sh', bytes: 18, entries: 1 });
  t.equal(await readFile(path.join(ws, 'bin/up.sh'), 'utf8'), '#!/bin/sh\necho hi\n');
  t.equal((await stat(path.join(ws, 'bin/up.sh'))).mode & 0o777, 0o755, 'the local mode is kept');
  t.equal((await stat(path.join(ws, 'bin/up.sh'))).uid, (await stat(ws)).uid, "the file is the agent's");
  t.equal((await cliWithInput('from stdin', '-', 'copier:piped.txt')).code, 0);
  t.equal(await readFile(path.join(ws, 'piped.txt'), 'utf8'), 'from stdin');
  t.match(await cliWithInput('x', '-', 'copier:bin'), { code: 1, stderr: /is a directory; name the file/ });
  // Bad usage whatever is there (exit 2): the workspace itself, or a path ending in /, names a directory, and stdin has no name.
  t.match(await cliWithInput('x', '-', 'copier:'), { code: 2, stderr: /copier: names a directory, and stdin has no name/ });
  t.match(await cliWithInput('x', '-', 'copier:bin/'), { code: 2, stderr: /copier:bin\/ names a directory, and stdin has no name/ });
  t.match(await cliWithInput('x', '-', 'copier:nowhere/'), { code: 2, stderr: /names a directory, and stdin has no name/ });
});

t.test('names and link targets that are not UTF-8 go up and come down byte for byte', async (t) => {
  const local = path.join(work, 'odd');
  await mkdir(local);
  const odd = Buffer.concat([Buffer.from(`${local}/a`), Buffer.of(0xff)]);
  await writeFile(odd, 'odd');
  await symlink(Buffer.of(0x61, 0xfe), path.join(local, 'link'));
  const up = await cli('odd', 'copier:');
  t.equal(up.code, 0, up.stderr);
  t.equal(await readFile(Buffer.concat([Buffer.from(`${ws}/odd/a`), Buffer.of(0xff)]), 'utf8'), 'odd', 'up: the name as its bytes');
  t.same(await readlink(path.join(ws, 'odd/link'), { encoding: 'buffer' }), Buffer.of(0x61, 0xfe), 'up: the target as its bytes');
  const down = await cli('copier:odd', 'odd-back');
  t.equal(down.code, 0, down.stderr);
  t.equal(await readFile(Buffer.concat([Buffer.from(`${work}/odd-back/a`), Buffer.of(0xff)]), 'utf8'), 'odd', 'down: the name as its bytes');
  t.same(await readlink(path.join(work, 'odd-back/link'), { encoding: 'buffer' }), Buffer.of(0x61, 0xfe), 'down: the target as its bytes');
});

t.test('a directory down and up, links kept as links', async (t) => {
  const r = await cli('--json', 'copier:tree', 'tree-copy');
  t.equal(r.code, 0, r.stderr);
  t.match(JSON.parse(r.stdout), { kind: 'dir', bytes: 5, entries: 3 });
  t.equal(await readFile(path.join(work, 'tree-copy/deep/leaf.txt'), 'utf8'), 'leaf\n');
  t.equal(await readlink(path.join(work, 'tree-copy/rel')), 'deep/leaf.txt');
  t.equal((await cli('copier:tree', 'tree-copy')).code, 0, 'again, onto the copy: inside it');
  t.ok(await stat(path.join(work, 'tree-copy/tree/deep/leaf.txt')));

  await mkdir(path.join(work, 'src/lib'), { recursive: true });
  await writeFile(path.join(work, 'src/lib/a.ts'), 'export const a = 1;\n');
  await writeFile(path.join(work, 'src/main.ts'), 'import "./lib/a";\n');
  await symlink('lib/a.ts', path.join(work, 'src/alias.ts'));
  const up = await cli('--json', 'src', 'copier:');
  t.equal(up.code, 0, up.stderr);
  t.match(JSON.parse(up.stdout), { kind: 'dir', to: 'copier:src', entries: 4 });
  t.equal(await readFile(path.join(ws, 'src/lib/a.ts'), 'utf8'), 'export const a = 1;\n');
  t.equal(await readlink(path.join(ws, 'src/alias.ts')), 'lib/a.ts');
  t.equal((await cli('src', 'copier:fresh')).code, 0, 'onto a missing path: it becomes that path');
  t.ok(await stat(path.join(ws, 'fresh/main.ts')));
});

t.test("--json to stdout says what went there as a copy into a path does: entries and file bytes, for a file and for a directory's tar", async (t) => {
  const file = await cli('--json', 'copier:out.txt', '-');
  t.equal(file.code, 0, file.stderr);
  t.same(JSON.parse(file.stderr), { kind: 'file', from: 'copier:out.txt', to: '-', bytes: 14, entries: 1 });
  const dir = await cli('--json', 'copier:tree', '-');
  t.equal(dir.code, 0, dir.stderr);
  t.same(JSON.parse(dir.stderr), { kind: 'dir', from: 'copier:tree', to: '-', bytes: 5, entries: 3 }, 'as copier:tree into tree-copy reports it');
});

const THP = '/sys/kernel/mm/transparent_hugepage';
t.test(
  'a local file that reads shorter than its size (as sysfs files do) fails the upload naming it, never padded nor said to be the box unreachable',
  { skip: existsSync(THP) ? false : `no ${THP} on this kernel` },
  async (t) => {
    const r = await cli(THP, 'copier:thp');
    t.equal(r.code, 1);
    t.match(r.stderr, /\/sys\/kernel\/mm\/transparent_hugepage: ".+" was made shorter while it was packed/);
    t.notMatch(r.stderr, /cannot reach|Is the box running/);
    await t.rejects(stat(path.join(ws, 'thp')), { code: 'ENOENT' }, 'nothing written');
  },
);

t.test('a path ending in "." copies a directory\'s contents into an existing one, both ways (as cp -r dir/. and docker cp)', async (t) => {
  await mkdir(path.join(work, 'merged'), { recursive: true });
  await writeFile(path.join(work, 'merged/kept.txt'), 'kept\n');
  const down = await cli('--json', 'copier:tree/.', 'merged');
  t.equal(down.code, 0, down.stderr);
  t.match(JSON.parse(down.stdout), { kind: 'dir', to: 'merged', entries: 3 });
  t.equal(await readFile(path.join(work, 'merged/deep/leaf.txt'), 'utf8'), 'leaf\n', 'down: the contents, not tree/ under its name');
  t.equal(await readFile(path.join(work, 'merged/kept.txt'), 'utf8'), 'kept\n', 'down: what was there stays');
  await t.rejects(stat(path.join(work, 'merged/tree')), { code: 'ENOENT' });
  t.equal((await cli('copier:./tree/./deep/.', 'merged/deep')).code, 0, '"." segments anywhere are dropped, as a shell user writes them');

  await mkdir(path.join(work, 'contents/sub'), { recursive: true });
  await writeFile(path.join(work, 'contents/sub/c.txt'), 'c\n');
  const up = await cli('--json', 'contents/.', 'copier:tree');
  t.equal(up.code, 0, up.stderr);
  t.match(JSON.parse(up.stdout), { kind: 'dir', to: 'copier:tree' });
  t.equal(await readFile(path.join(ws, 'tree/sub/c.txt'), 'utf8'), 'c\n', 'up: the contents merged into the existing directory');
  t.equal(await readFile(path.join(ws, 'tree/deep/leaf.txt'), 'utf8'), 'leaf\n', 'up: what was there stays');
  await t.rejects(stat(path.join(ws, 'tree/contents')), { code: 'ENOENT' });

  const onFile = await cli('copier:out.txt/.', 'merged');
  t.equal(onFile.code, 1);
  t.match(onFile.stderr, /out\.txt is not a directory; a path ending in "\." names a directory's contents/);

  // Merged into a directory that holds a link where the tree has a directory: never written through it.
  const outside = await mkdtemp(path.join(tmpdir(), 'agentbox-cli-cp-outside-'));
  t.teardown(() => rm(outside, { recursive: true, force: true }));
  await mkdir(path.join(work, 'linked'));
  await symlink(outside, path.join(work, 'linked/deep'));
  const through = await cli('copier:tree/.', 'linked');
  t.equal(through.code, 1, 'refused');
  t.match(through.stderr, /deep/, 'naming the entry');
  t.same(await readdir(outside), [], 'nothing written through the link');
  t.equal(await readlink(path.join(work, 'linked/deep')), outside, 'the link is left as it was');
  t.match(await cli('copier:tree/../..', 'merged'), { code: 2, stderr: /must not contain "\.\." segments/ }, '".." is still refused before any request');
});

t.test('a directory onto a local file is refused as such; entries an upload leaves out are named', async (t) => {
  await writeFile(path.join(work, 'a-file'), 'kept\n');
  const onto = await cli('copier:tree', 'a-file');
  t.equal(onto.code, 1);
  t.match(onto.stderr, /a-file is a file; a directory is copied into a directory or to a new path/);
  t.notMatch(onto.stderr, /ENOTDIR/, 'no raw errno');
  t.equal(await readFile(path.join(work, 'a-file'), 'utf8'), 'kept\n', 'the file is untouched');

  await mkdir(path.join(work, 'with-fifo'));
  await writeFile(path.join(work, 'with-fifo/plain.txt'), 'plain\n');
  execFileSync('mkfifo', [path.join(work, 'with-fifo/pipe')]);
  const up = await cli('with-fifo', 'copier:');
  t.equal(up.code, 0, up.stderr);
  t.match(up.stderr, /1 entry of with-fifo left out .*\n {2}with-fifo\/pipe\n/, `the FIFO is named: ${up.stderr}`);
  t.equal(await readFile(path.join(ws, 'with-fifo/plain.txt'), 'utf8'), 'plain\n', 'the rest was copied');
});

t.test('refused: a path out of the workspace, a link out in a downloaded tree, no such agent or path', async (t) => {
  // Bad usage, exit 2: an empty operand (an unset shell variable) names nothing.
  t.match(await cli('', 'copier:x'), { code: 2, stderr: /the source is empty; name a path/ });
  t.match(await cli('copier:out.txt', ''), { code: 2, stderr: /the destination is empty; name a path/ });
  // Bad usage, exit 2, as the snapshot commands say a ".." (cli.md).
  t.match(await cli('copier:../other/x', 'x'), { code: 2, stderr: /must not contain "\.\." segments/ });
  t.match(await cli('out.txt', 'copier:a/../../x'), { code: 2, stderr: /must not contain "\.\." segments/ });
  t.match(await cli('snp_aaaaaaaaaaaa:../x', 'x'), { code: 2, stderr: /must not contain "\.\." segments/ }, 'out of a snapshot too');
  const evil = await cli('copier:evil', 'evil-copy');
  t.equal(evil.code, 1);
  t.match(evil.stderr, /link "escape" points to an absolute path \("\/etc"\)/);
  await t.rejects(lstat(path.join(work, 'evil-copy')), 'nothing left behind, not even the directory');
  t.match(await cli('copier:escape-nothing', 'x'), { code: 1, stderr: /copier:escape-nothing: workspace entry "escape-nothing" not found/ });
  t.match(await cli('nobody:out.txt', 'x'), { code: 1, stderr: /no agent "nobody"/ });
  t.match(await cli('missing-local.txt', 'copier:x'), { code: 1, stderr: /missing-local\.txt: no such file or directory/ });
  t.match(await cli('a', 'b'), { code: 2, stderr: /exactly one side is AGENT:PATH/ });
  t.match(await cli('copier:evil/escape', 'x'), { code: 1, stderr: /symbolic link/ }, 'a link in the workspace is not read through');
});

t.test('refused: a chain of links in a downloaded tree that climbs out though each link reads as inside', async (t) => {
  // As an agent makes it: l0 -> ., l1 -> l0/.. (the copy's parent), etc -> l1/../../etc (text that reads as inside).
  const chain = path.join(ws, 'chain');
  await mkdir(chain);
  await symlink('.', path.join(chain, 'l0'));
  await symlink('l0/..', path.join(chain, 'l1'));
  await symlink('l1/l1/l1/etc', path.join(chain, 'etc'));
  const r = await cli('copier:chain', 'chain-copy');
  t.equal(r.code, 1, 'refused');
  t.match(r.stderr, /link "l1" has a "\.\." after a name \("l0\/\.\."\)/);
  t.match(r.stderr, /agentbox cp copier:chain - \| tar -x/, 'the message says how to take the links as they are, knowingly');
  await t.rejects(lstat(path.join(work, 'chain-copy')), 'nothing left behind, not even the directory');
});

t.test("a directory the box cuts off midway (sparse files past the agent's disk budget): said so, nothing kept", async (t) => {
  const sparse = await box.api('/v1/agents', { body: { name: 'sparse', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '16m' } } });
  t.equal(sparse.status, 201);
  const dir = path.join(box.paths.workspaceDir, 'sparse');
  for (const name of ['a.img', 'b.img']) execFileSync('truncate', ['-s', '12M', path.join(dir, name)]);
  const r = await cli('sparse:', 'sparse-copy');
  t.match(r, {
    code: 1,
    stderr:
      /sparse: -> sparse-copy: the box cut the download off midway \(.*\); nothing of it was kept\. The box's log says why: .*sparse files holding more holes than the agent's disk budget/,
  });
  t.equal(await stat(path.join(work, 'sparse-copy')).catch(() => undefined), undefined, 'no directory is left');
  t.match(await cli('sparse:', '-'), { code: 1, stderr: /the box cut the download off midway .*the tar written to stdout is incomplete/ });
  await box.api(`/v1/agents/${(sparse.json['agent'] as { id: string }).id}?graceMs=0`, { method: 'DELETE' });
});

t.test('a file down onto what is already there: a device or FIFO written into, a link written through, a socket or block device refused', async (t) => {
  const dest = await mkdtemp(path.join(work, 'dest-'));
  // A device node of this test's own (the null device's numbers), never the machine's /dev/null.
  const devNull = path.join(dest, 'null');
  execFileSync('mknod', [devNull, 'c', '1', '3']);
  t.teardown(() => rm(devNull, { force: true }));
  t.equal((await cli('copier:out.txt', devNull)).code, 0, 'into a character device');
  t.ok((await lstat(devNull)).isCharacterDevice(), 'the device is still a device, not replaced by a file');

  const fifo = path.join(dest, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  let read = '';
  reader.stdout.setEncoding('utf8').on('data', (chunk: string) => (read += chunk));
  const readerDone = once(reader, 'exit');
  const r = await cli('copier:out.txt', fifo);
  const stillFifo = (await lstat(fifo)).isFIFO();
  // A FIFO replaced by a file is never opened by a writer: its reader would wait for ever.
  if (!stillFifo) reader.kill();
  await readerDone;
  t.equal(r.code, 0, r.stderr);
  t.ok(stillFifo, 'the FIFO is still a FIFO');
  t.equal(read, 'made-by-agent\n', "the FIFO's reader gets the file");

  await writeFile(path.join(dest, 'real.txt'), 'before\n');
  await symlink('real.txt', path.join(dest, 'link.txt'));
  const through = await cli('copier:out.txt', path.join(dest, 'link.txt'));
  t.equal(through.code, 0, through.stderr);
  t.equal(await readlink(path.join(dest, 'link.txt')), 'real.txt', 'the link is left a link');
  t.equal(await readFile(path.join(dest, 'real.txt'), 'utf8'), 'made-by-agent\n', 'its target is written');
  await mkdir(path.join(dest, 'into'));
  await writeFile(path.join(dest, 'real2.txt'), 'before\n');
  await symlink('../real2.txt', path.join(dest, 'into/out.txt'));
  t.equal((await cli('copier:out.txt', path.join(dest, 'into'))).code, 0, 'into a directory where the name is a link');
  t.equal(await readFile(path.join(dest, 'real2.txt'), 'utf8'), 'made-by-agent\n', "the link's target is written");
  t.equal(await readlink(path.join(dest, 'into/out.txt')), '../real2.txt');

  await symlink('nowhere.txt', path.join(dest, 'dangling'));
  const dangling = await cli('copier:out.txt', path.join(dest, 'dangling'));
  t.equal(dangling.code, 1);
  t.match(dangling.stderr, /dangling is a symbolic link to nowhere\.txt, which does not exist; a download is not written through a dangling link/);
  t.equal(await readlink(path.join(dest, 'dangling')), 'nowhere.txt', 'the link is left as it was');
  await t.rejects(lstat(path.join(dest, 'nowhere.txt')), { code: 'ENOENT' }, 'its target is not made');

  const socket = path.join(dest, 'sock');
  const server = createServer().listen(socket);
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => server.close());
  t.match(await cli('copier:out.txt', socket), {
    code: 1,
    stderr: /sock is a socket; a file is downloaded to a file, a new name, a directory, a FIFO or a character device/,
  });
  t.ok((await lstat(socket)).isSocket(), 'the socket is left as it was');
  // A block device of a number no driver answers (the experimental range): never one of this machine's disks.
  const block = path.join(dest, 'block');
  execFileSync('mknod', [block, 'b', '240', '0']);
  t.teardown(() => rm(block, { force: true }));
  t.match(await cli('copier:out.txt', block), { code: 1, stderr: /block is a block device/ });
  t.ok((await lstat(block)).isBlockDevice());

  const dirOnto = await cli('copier:tree', devNull);
  t.equal(dirOnto.code, 1);
  t.match(dirOnto.stderr, /null is a character device; a directory is copied into a directory or to a new path/, 'a directory onto a device names what it is');
  t.match(await cli('copier:tree', fifo), { code: 1, stderr: /fifo is a FIFO;/ });
  t.same(
    (await readdir(dest)).filter((n) => n.endsWith('.part')),
    [],
    'no part file left beside',
  );
});

t.test('a path ending in / names a directory, both ways: into it when it is one, refused otherwise', async (t) => {
  await writeFile(path.join(work, 'pp'), 'pp\n');
  const newdir = await cli('pp', 'copier:newdir2/');
  t.equal(newdir.code, 1);
  t.match(newdir.stderr, /copier:newdir2\/: no such directory; a destination ending in \/ names an existing directory/);
  await t.rejects(lstat(path.join(ws, 'newdir2')), { code: 'ENOENT' }, 'no file made under the name');
  t.match(await cli('pp', 'copier:out.txt/'), { code: 1, stderr: /copier:out\.txt\/: not a directory/ });
  t.equal(await readFile(path.join(ws, 'out.txt'), 'utf8'), 'made-by-agent\n', 'the file is left as it was');
  t.equal((await cli('pp', 'copier:tree/')).code, 0, 'an existing directory: into it');
  t.equal(await readFile(path.join(ws, 'tree/pp'), 'utf8'), 'pp\n');
  t.equal((await cli('src', 'copier:fresh-dir/')).code, 0, 'a directory onto a missing path ending in /: made, as cp -r');
  t.ok((await stat(path.join(ws, 'fresh-dir/main.ts'))).isFile());

  const onFile = await cli('copier:out.txt/', 'slashed.txt');
  t.equal(onFile.code, 1, 'a file named with a trailing / is refused, as the files API refuses it');
  t.match(onFile.stderr, /copier:out\.txt\/: not a directory; a path ending in \/ names a directory/);
  await t.rejects(lstat(path.join(work, 'slashed.txt')), { code: 'ENOENT' });
  const missingLocal = await cli('copier:out.txt', 'no-such-dir/');
  t.equal(missingLocal.code, 1);
  t.match(missingLocal.stderr, /no-such-dir\/: not a directory; a destination ending in \/ names an existing directory/);
  await t.rejects(lstat(path.join(work, 'no-such-dir')), { code: 'ENOENT' }, 'no file made under the name');
  t.match(await cli('copier:out.txt', 'pp/'), { code: 1, stderr: /not a directory/ });
  t.equal(await readFile(path.join(work, 'pp'), 'utf8'), 'pp\n');
  await mkdir(path.join(work, 'slash-into'));
  t.equal((await cli('copier:out.txt', 'slash-into/')).code, 0, 'an existing local directory: into it');
  t.equal(await readFile(path.join(work, 'slash-into/out.txt'), 'utf8'), 'made-by-agent\n');
});

t.test('a name starting with - is named as typed, with the -- form that copies it', async (t) => {
  await writeFile(path.join(work, '-dash.txt'), 'dash\n');
  const r = await cli('-dash.txt', 'copier:');
  t.equal(r.code, 2);
  t.match(
    r.stderr,
    /^agentbox cp: unknown option -d \(in -dash\.txt\); to give a name starting with -, put -- before it: agentbox cp .* -- -dash\.txt copier:/,
  );
  t.notMatch(r.stderr, /"-d|Usage:/, "node's own words and the whole usage are not repeated");
  const fixed = await cli('--', '-dash.txt', 'copier:');
  t.equal(fixed.code, 0, fixed.stderr);
  t.equal(await readFile(path.join(ws, '-dash.txt'), 'utf8'), 'dash\n', 'the form shown copies it');
  const ps = await runAgentboxAsync(['ps', '--bogus'], { cwd: work, env });
  t.match(
    ps,
    { code: 2, stderr: /^agentbox ps: unknown option --bogus \(agentbox ps --help lists the options\)$/m },
    'every command says it; a long option is pointed to the options only',
  );
});

t.test('a directory keeps its own mode both ways, as everything below it does', async (t) => {
  const modeOf = async (p: string) => (await stat(p)).mode & 0o777;
  for (const way of [
    { what: 'up', from: work, to: ws, src: 'up-modes', dst: 'copier:up-modes-copy' },
    { what: 'down', from: ws, to: work, src: 'copier:down-modes', dst: 'down-modes-copy' },
  ]) {
    const name = way.src.replace('copier:', '');
    await mkdir(path.join(way.from, name, 'sub'), { recursive: true });
    await chmod(path.join(way.from, name, 'sub'), 0o750);
    await chmod(path.join(way.from, name), 0o710);
    const copy = path.join(way.to, way.dst.replace('copier:', ''));
    t.equal((await cli(way.src, way.dst)).code, 0);
    t.equal(await modeOf(copy), 0o710, `${way.what}: onto a new path`);
    t.equal(await modeOf(path.join(copy, 'sub')), 0o750, `${way.what}: below it`);
    t.equal((await cli(way.src, way.dst)).code, 0);
    t.equal(await modeOf(path.join(copy, name)), 0o710, `${way.what}: into an existing directory, under its name`);
    t.equal(await modeOf(copy), 0o710, `${way.what}: the existing one left as it was`);
  }
});

t.test('--help', async (t) => {
  const r = await runAgentboxAsync(['cp', '--help'], { cwd: work, env });
  t.equal(r.code, 0);
  t.match(r.stdout, /Usage: agentbox cp \[options\] SRC DST/);
});

// A backup tar that is not whole (cut short anywhere, a header damaged, compressed, not a tar at all) is refused by the real CLI's
// `backup verify` (text and --json) and `restore`, in words that name the file and say what is wrong, exit 1, with no unpacked
// directory left behind; and such a directory is removed when the command is ended by a signal. A member named twice, or
// in the place of another, is refused as the archive's fault (never said as a full disk).
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as tar from 'tar-stream';
import { runAgentbox } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-archive-damage-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
// The commands' own temporary directories go here, so that one left behind is seen.
const temp = path.join(work, 'tmp');
mkdirSync(temp);
const env = { ...process.env, TMPDIR: temp };
const agentbox = (...args: string[]) => runAgentbox(args, { env, cwd: work });

// A box's state with enough pod files that the index (the archive's last member) is several blocks long.
const root = path.join(work, 'box');
const pods = path.join(root, 'var/lib/agentbox/pods/docs');
mkdirSync(pods, { recursive: true });
for (let i = 0; i < 80; i++) writeFileSync(path.join(pods, `page-${i}.txt`), `page ${i}\n`);
const archive = path.join(work, 'box.tar');
const made = agentbox('backup', '--root', root, '--to', archive);

/** A tar of `members` as tar-stream packs it (end-of-archive marker included). */
async function tarOf(members: Array<[string, Buffer]>): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, data] of members) pack.entry({ name, size: data.length }, data);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const c of pack) chunks.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** `file` refused by verify (text and --json) and restore with a message matching `said`; nothing left in the temporary directory. */
function refused(t: Test, file: string, said: RegExp): void {
  const verify = agentbox('backup', 'verify', file);
  t.equal(verify.code, 1, `verify exits 1: ${verify.stdout}${verify.stderr}`);
  t.match(verify.stdout, said, 'verify names the file and what is wrong');
  const json = agentbox('backup', 'verify', file, '--json');
  t.equal(json.code, 1);
  t.match((JSON.parse(json.stdout) as { problems: string[] }).problems, [said], '--json problems say the same');
  const newRoot = path.join(work, `restored-${path.basename(file)}`);
  const restore = agentbox('restore', file, '--root', newRoot);
  t.equal(restore.code, 1, `restore exits 1: ${restore.stderr}`);
  t.match(restore.stderr, said, 'restore says the same');
  t.notOk(existsSync(newRoot), 'nothing restored');
  t.same(readdirSync(temp), [], 'no unpacked directory left behind');
}

t.test('an archive cut short by any amount is refused as truncated, naming it', async (t) => {
  t.equal(made.code, 0, made.stderr);
  t.match(agentbox('backup', 'verify', archive), { code: 0, stdout: /whole: \d+ files/ });
  const bytes = readFileSync(archive);
  // Within the end marker, at a block boundary inside the index, inside a block, and deep into the members.
  for (const cut of [100, 1024, 2048, 5000, 10_000, 30_000]) {
    const file = path.join(work, `cut-${cut}.tar`);
    writeFileSync(file, bytes);
    truncateSync(file, bytes.length - cut);
    refused(t, file, new RegExp(`${file.replace(/[.]/g, '\\.')} .*truncated`));
  }
});

t.test('an archive cut inside a member of zeros, at a block boundary, is refused as truncated', async (t) => {
  // It ends in zero blocks as a whole tar does: only the reader finds the member short.
  const whole = await tarOf([
    ['state/pods/a.txt', Buffer.from('a\n')],
    ['state/pods/zeros', Buffer.alloc(16 * 1024)],
  ]);
  const file = path.join(work, 'cut-in-zeros.tar');
  writeFileSync(file, whole.subarray(0, whole.length - 1024 - 8 * 1024));
  refused(t, file, new RegExp(`${file.replace(/[.]/g, '\\.')} ends inside the member after state/pods/a\\.txt: it is truncated`));
});

t.test('a damaged header, a compressed archive and files that are no tar are refused, naming the file and what is wrong', async (t) => {
  const tarred = await tarOf([
    ['state/pods/a.txt', Buffer.from('a\n')],
    ['state/pods/b.txt', Buffer.from('b\n')],
  ]);
  // The second member's header starts after the first's header and its one block of data.
  tarred.writeUInt8(tarred.readUInt8(1024 + 20) ^ 0x01, 1024 + 20);
  const badHeader = path.join(work, 'bad-header.tar');
  writeFileSync(badHeader, tarred);
  refused(t, badHeader, /bad-header\.tar: the tar header of the member after state\/pods\/a\.txt is damaged .*corrupted, or not a tar/);

  const gz = path.join(work, 'gzipped.tar');
  writeFileSync(gz, gzipSync(readFileSync(archive)));
  refused(t, gz, /gzipped\.tar is gzip-compressed, not a tar: uncompress it first/);

  const text = path.join(work, 'text.tar');
  writeFileSync(text, 'hello\n');
  refused(t, text, /text\.tar is 6 bytes, not a whole number of 512-byte tar blocks: it is truncated .*or not a tar/);

  const empty = path.join(work, 'empty.tar');
  writeFileSync(empty, '');
  refused(t, empty, /empty\.tar is empty: not a backup archive/);

  const noise = path.join(work, 'noise.tar');
  writeFileSync(noise, Buffer.alloc(10 * 512, 0x41));
  refused(t, noise, /noise\.tar does not end with tar's end-of-archive marker .*or not a whole tar/);
});

t.test('a member named twice, or a file where a directory of another member is, is refused naming it', async (t) => {
  const twice = path.join(work, 'twice.tar');
  writeFileSync(
    twice,
    await tarOf([
      ['backup.json', Buffer.from('{}')],
      ['backup.json', Buffer.from('{}')],
    ]),
  );
  refused(t, twice, new RegExp(`${twice}: member backup\\.json is there twice, or in the place of another member`));
  const inTheWay = path.join(work, 'in-the-way.tar');
  writeFileSync(
    inTheWay,
    await tarOf([
      ['state', Buffer.from('a file')],
      ['state/pods/page', Buffer.from('x')],
    ]),
  );
  refused(t, inTheWay, new RegExp(`${inTheWay}: member state/pods/page is there twice, or in the place of another member`));
});

t.test("a command's unpacked directory is removed when a signal ends it, and the signal ends it", async (t) => {
  // The built module, in a plain node child: it registers the directory, says so, and waits to be signalled.
  const dir = path.join(work, 'unpacked-by-child');
  const moduleUrl = new URL('../../dist/management-api/src/backup/removed-on-signal.js', import.meta.url).href;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    for (const d of [dir, `${dir}-other`]) {
      mkdirSync(path.join(d, 'state'), { recursive: true });
      writeFileSync(path.join(d, 'state/file'), 'x');
    }
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { removedOnSignal } = await import(${JSON.stringify(moduleUrl)}); removedOnSignal(${JSON.stringify(dir)}); removedOnSignal(${JSON.stringify(`${dir}-other`)}); console.log('ready'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'], timeout: 60_000 },
    );
    t.teardown(() => child.kill('SIGKILL'));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.kill(signal);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    t.equal(code, 128 + constants.signals[signal], `${signal} still ends the process, with the status a shell gives it`);
    t.notOk(existsSync(dir) || existsSync(`${dir}-other`), `${signal}: both directories registered are gone`);
  }
});

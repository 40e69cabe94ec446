// The machine lock the box registry and the IP-forward guard share: one holder at a time across
// processes and within one, released by the kernel when its holder is killed, and never an error
// for a waiter whose holder releases just as it looks (the O_EXCL file lock failed with ENOENT then,
// and `agentbox up` with it: a box started beside two others never came up).
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { takeFileLock } from '../../management-api/src/file-lock.js';
import { repoRoot } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-file-lock-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const compiled = path.join(repoRoot, 'dist/management-api/src/file-lock.js');

/** A Node process running `body` with takeFileLock imported; resolves to its exit code and output. */
function node(body: string): {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  pid: number;
  stdout: NodeJS.ReadableStream;
} {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `import { takeFileLock } from ${JSON.stringify(compiled)};\n${body}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, output })),
  );
  return { exited, pid: child.pid!, stdout: child.stdout };
}

t.test('one holder at a time in one process; a waiter past its wait gets undefined', async (t) => {
  const file = path.join(work, 'one.db');
  const release = await takeFileLock(file, 1_000);
  t.ok(release, 'taken');
  t.equal(statSync(file).mode & 0o777, 0o600, 'the lock file is 0600');
  t.equal(await takeFileLock(file, 50), undefined, 'a second taker gives up after its wait');
  let second = false;
  const waiting = takeFileLock(file, 5_000).then((r) => {
    second = true;
    return r;
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.notOk(second, 'a second taker waits');
  release!();
  release!(); // a second release does nothing
  const next = await waiting;
  t.ok(next, 'and gets it once released');
  next!();
});

t.test('a holder killed while it holds the lock: the next taker gets it at once', async (t) => {
  const file = path.join(work, 'killed.db');
  const holder = node(`await takeFileLock(${JSON.stringify(file)}, 5000); console.log('held'); setInterval(() => {}, 1000);`);
  await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
  t.equal(await takeFileLock(file, 50), undefined, 'held by the other process');
  process.kill(holder.pid, 'SIGKILL');
  t.equal((await holder.exited).signal, 'SIGKILL');
  // No wait at all: one try, which the kernel's release lets through (no stale lock to wait out).
  const release = await takeFileLock(file, 0);
  t.ok(release, 'taken at the first try once its holder is gone');
  release!();
});

t.test('six processes taking it 25 times each at once: no error, and no two inside at once', async (t) => {
  const file = path.join(work, 'busy.db');
  const counter = path.join(work, 'counter');
  writeFileSync(counter, '0');
  // Inside the lock: read the count, yield, write it plus one. Two inside at once lose an increment.
  const body = `
    import { readFileSync, writeFileSync } from 'node:fs';
    for (let i = 0; i < 25; i++) {
      const release = await takeFileLock(${JSON.stringify(file)}, 30000);
      if (!release) throw new Error('not taken in 30 s');
      const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8'));
      await new Promise((r) => setTimeout(r, 1));
      writeFileSync(${JSON.stringify(counter)}, String(n + 1));
      release();
    }`;
  const results = await Promise.all(Array.from({ length: 6 }, () => node(body).exited));
  t.same(
    results.map((r) => r.code),
    [0, 0, 0, 0, 0, 0],
    results
      .map((r) => r.output)
      .join('')
      .slice(0, 2000),
  );
  t.equal(readFileSync(counter, 'utf8'), '150', 'every increment kept');
});

t.test('a directory others may write to, or a link in place of the file, is refused', async (t) => {
  const shared = path.join(work, 'shared');
  mkdirSync(shared, { mode: 0o777 });
  chmodSync(shared, 0o777);
  await t.rejects(takeFileLock(path.join(shared, 'lock.db'), 0), /no one else may write to/, 'a world-writable directory');
  const own = path.join(work, 'own');
  mkdirSync(own, { mode: 0o700 });
  const target = path.join(work, 'elsewhere');
  writeFileSync(target, 'not a lock');
  symlinkSync(target, path.join(own, 'lock.db'));
  await t.rejects(takeFileLock(path.join(own, 'lock.db'), 0), { code: 'ELOOP' }, 'a link is not followed');
  t.equal(readFileSync(target, 'utf8'), 'not a lock', 'its target untouched');
});

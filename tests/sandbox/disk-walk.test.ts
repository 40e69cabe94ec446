// The disk walker against honest and hostile trees: allocated blocks, sparse files, hard links, link loops, a tree deeper than PATH_MAX, a wide one, unreadable entries, and the event loop kept turning.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, linkSync, mkdirSync, mkdtempSync, openSync, symlinkSync, writeFileSync, ftruncateSync, lstatSync } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { walkDisk, type WalkFs } from '../../management-api/src/sandbox/limits/disk-walk.js';

const MIB = 1024 ** 2;
const isRoot = process.getuid?.() === 0;

/** A fresh directory, removed with rm -rf (which, unlike a walk by absolute paths, copes with any depth). */
function scratch(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-walk-'));
  t.teardown(() => {
    spawnSync('chmod', ['-R', 'u+rwx', dir]);
    spawnSync('rm', ['-rf', dir]);
  });
  return dir;
}

t.test('allocated blocks: real data counts, a sparse file only what it holds, a hard-linked file once', async (t) => {
  const dir = scratch(t);
  writeFileSync(path.join(dir, 'data'), Buffer.alloc(2 * MIB, 1));
  const fd = openSync(path.join(dir, 'sparse'), 'w');
  ftruncateSync(fd, 1024 * MIB);
  closeSync(fd);
  for (let i = 0; i < 50; i++) linkSync(path.join(dir, 'data'), path.join(dir, `link-${i}`));
  const found = await walkDisk([dir]);
  t.notOk(found.unmeasurable);
  t.ok(found.bytes >= 2 * MIB && found.bytes < 3 * MIB, `2 MiB of data, a 1 GiB sparse file and 50 links to the data: ${found.bytes} bytes`);
  t.equal(found.entries, 1 + 1 + 1 + 50, 'every entry seen (the root, the files, the links)');
  const twice = await walkDisk([dir, dir]);
  t.equal(twice.bytes, found.bytes + (twice.bytes - found.bytes), 'a directory named twice walks twice (the caller names distinct ones)');
});

t.test('links are never followed: a loop, a link to / and a link to a big file count as links', async (t) => {
  const dir = scratch(t);
  mkdirSync(path.join(dir, 'a'));
  symlinkSync('..', path.join(dir, 'a', 'up'));
  symlinkSync(path.join(dir, 'a'), path.join(dir, 'a', 'self'));
  symlinkSync('/', path.join(dir, 'root'));
  symlinkSync('loop2', path.join(dir, 'loop1'));
  symlinkSync('loop1', path.join(dir, 'loop2'));
  const found = await walkDisk([dir]);
  t.notOk(found.unmeasurable, 'a loop is no error: it is never entered');
  t.equal(found.entries, 7);
  t.ok(found.bytes < 64 * 1024, `only the directories' own blocks: ${found.bytes}`);
});

t.test('deeper than PATH_MAX: unmeasurable (ENAMETOOLONG), counted as over budget by the caller, no crash', async (t) => {
  const dir = scratch(t);
  // Relative mkdir and cd, as an agent would: each step is short, the whole path is not (40 × 201 > 4096).
  const name = 'd'.repeat(200);
  const script = `const fs = require('node:fs'); process.chdir(process.argv[1]); for (let i = 0; i < 40; i++) { fs.mkdirSync('${name}'); process.chdir('${name}'); } fs.writeFileSync('file', 'x');`;
  const made = spawnSync(process.execPath, ['-e', script, dir], { encoding: 'utf8' });
  t.equal(made.status, 0, `made the deep tree (${made.stderr})`);
  const found = await walkDisk([dir]);
  t.match(found.unmeasurable, /: ENAMETOOLONG$/, `why: ${found.unmeasurable?.slice(-60)}`);
  t.ok(found.unmeasurable!.length < 400, 'the hostile path is shortened for the log');
});

t.test('wide: the entry cap ends the walk as unmeasurable, and the event loop keeps turning throughout', async (t) => {
  const dir = scratch(t);
  for (let d = 0; d < 10; d++) {
    mkdirSync(path.join(dir, `d${d}`));
    for (let f = 0; f < 1000; f++) writeFileSync(path.join(dir, `d${d}`, `f${f}`), '');
  }
  let ticks = 0;
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    ticks++;
  }, 1);
  const started = performance.now();
  const whole = await walkDisk([dir]);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  t.notOk(whole.unmeasurable);
  t.notOk(whole.overEntries);
  t.equal(whole.entries, 1 + 10 + 10_000);
  t.equal(whole.rootEntries, 1);
  t.ok(ticks > 10, `a 1 ms timer ran ${ticks} times during the ${seconds.toFixed(2)} s walk`);
  t.ok(worst < 250, `longest gap between two timer runs: ${worst.toFixed(1)} ms (${(whole.entries / seconds).toFixed(0)} entries/s)`);
  const capped = await walkDisk([dir], { maxEntries: 5_000 });
  t.equal(capped.unmeasurable, 'more than 5000 entries (limits.entries)');
  t.equal(capped.overEntries, true, 'the entry cap is told apart from an unreadable tree');
  t.equal(capped.entries, 1 + 5_001, 'stopped at the first entry past the cap (the root is not counted against it)');
  const below = whole.entries - 1;
  const exactly = await walkDisk([dir], { maxEntries: below });
  t.notOk(exactly.unmeasurable, 'a tree of exactly the cap below its root is measured whole, as a snapshot of it would be');
  t.equal(exactly.entries, whole.entries);
  t.equal((await walkDisk([dir], { maxEntries: below - 1 })).unmeasurable, `more than ${below - 1} entries (limits.entries)`);
});

t.test('a walk stops as soon as the total is above the budget', async (t) => {
  const dir = scratch(t);
  for (let i = 0; i < 100; i++) writeFileSync(path.join(dir, `f${i}`), Buffer.alloc(64 * 1024, 1));
  const found = await walkDisk([dir], { stopAboveBytes: MIB });
  t.ok(found.bytes > MIB, 'above the budget');
  t.ok(found.entries < 40, `stopped early: ${found.entries} entries of 101`);
  t.notOk(found.unmeasurable, 'over budget, not unmeasurable');
});

t.test('what cannot be read makes the walk unmeasurable; what vanished meanwhile is skipped', async (t) => {
  const dir = scratch(t);
  mkdirSync(path.join(dir, 'locked'));
  mkdirSync(path.join(dir, 'gone'));
  writeFileSync(path.join(dir, 'locked', 'secret'), 'x');
  const failing = (failures: Record<string, string>): WalkFs => ({
    lstat: (file) => {
      const code = failures[`lstat:${path.relative(dir, file)}`];
      if (code) throw Object.assign(new Error(code), { code });
      return lstatSync(file);
    },
    opendir: async (d, options) => {
      const code = failures[`opendir:${path.relative(dir, d)}`];
      if (code) throw Object.assign(new Error(code), { code });
      return opendir(d, options);
    },
  });
  const locked = await walkDisk([dir], { fs: failing({ 'opendir:locked': 'EACCES' }) });
  t.match(locked, { unmeasurable: `${path.join(dir, 'locked')}: EACCES` });
  t.notOk(locked.overEntries, 'an unreadable entry is no entry overrun');
  t.match(await walkDisk([dir], { fs: failing({ 'lstat:locked/secret': 'EPERM' }) }), { unmeasurable: `${path.join(dir, 'locked', 'secret')}: EPERM` });
  const vanished = await walkDisk([dir], { fs: failing({ 'opendir:gone': 'ENOENT', 'lstat:locked/secret': 'ENOENT' }) });
  t.notOk(vanished.unmeasurable, 'deleted during the walk: skipped');
  t.equal(vanished.entries, 3);
  t.same(
    await walkDisk([path.join(dir, 'no-such-dir')]),
    { bytes: 0, entries: 0, rootEntries: 0, otherDevices: 0 },
    'a directory that is not there counts nothing',
  );
});

t.test('a directory chmod 000 by its owner: unmeasurable for a walker without CAP_DAC_OVERRIDE', async (t) => {
  const dir = scratch(t);
  mkdirSync(path.join(dir, 'hidden'));
  writeFileSync(path.join(dir, 'hidden', 'big'), Buffer.alloc(MIB, 1));
  chmodSync(path.join(dir, 'hidden'), 0o000);
  if (!isRoot) {
    t.match(await walkDisk([dir]), { unmeasurable: `${path.join(dir, 'hidden')}: EACCES` });
    return;
  }
  // Root reads it anyway; the box in its container runs as uid 1000 without capabilities, as the walk here does.
  const found = await walkDisk([dir]);
  t.ok(found.bytes >= MIB, 'root sees through the mode bits');
  chmodSync(dir, 0o755);
  const walker = new URL('../../management-api/src/sandbox/limits/disk-walk.ts', import.meta.url).pathname;
  const script = `import { walkDisk } from ${JSON.stringify(walker)}; console.log(JSON.stringify(await walkDisk([${JSON.stringify(dir)}])));`;
  // The TypeScript loader this test runs under, so the child runs the same source.
  const loader = process.execArgv.filter((a) => a.startsWith('--import=') && a.includes('typescript'));
  const child = spawnSync(process.execPath, [...loader, '--input-type=module', '-e', script], {
    uid: 65534,
    gid: 65534,
    encoding: 'utf8',
    cwd: path.dirname(walker),
  });
  if (child.status !== 0) {
    t.pass('as uid 65534', { skip: `cannot run the walker as uid 65534 here: ${child.stderr.trim().split('\n').slice(-1)[0]}` });
    return;
  }
  t.match(JSON.parse(child.stdout), { unmeasurable: `${path.join(dir, 'hidden')}: EACCES` }, 'as uid 65534');
});

t.test('names that are not UTF-8 are counted: a directory so named hides nothing below it', async (t) => {
  const dir = scratch(t);
  // \xff as a directory holding 4 MiB, \xfe as a 2 MiB file: decoded as text, each would look up nothing.
  const odd = Buffer.concat([Buffer.from(`${dir}/`), Buffer.of(0xff)]);
  mkdirSync(odd);
  writeFileSync(Buffer.concat([odd, Buffer.from('/inner')]), Buffer.alloc(4 * MIB, 1));
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.of(0xfe)]), Buffer.alloc(2 * MIB, 1));
  const found = await walkDisk([dir]);
  t.notOk(found.unmeasurable, 'measured whole');
  t.equal(found.entries, 4, 'the root, the odd directory, the file in it, the odd file');
  t.ok(found.bytes >= 6 * MIB, `6 MiB counted: ${found.bytes} bytes`);
});

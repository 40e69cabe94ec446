// Several `npm start` at once (one per box of a mesh) take turns installing and building: the
// prerequisite step of scripts/lib/prereqs.sh run twice concurrently, with a stand-in `npm` that
// records when it runs, never runs two at once; and a build whose inputs did not change since the
// last one is not run again (it would rewrite dist/ under the boxes running from it).
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../helpers/cli.js';

/** Run abx_require_npm_build in `cwd` with `bin` first on PATH; resolves with the exit code and stderr. */
function requireBuild(cwd: string, bin: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', `. ${JSON.stringify(path.join(repoRoot, 'scripts/lib/prereqs.sh'))} && abx_require_npm_build`], {
      cwd,
      env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

t.test('concurrent installs and builds take turns on dist/.build.lock', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-build-lock-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'bin');
  const log = path.join(dir, 'npm.log');
  mkdirSync(bin);
  // The stand-in takes a while, so two unlocked runs would overlap.
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "start $1 $$" >> ${JSON.stringify(log)}\nsleep 0.4\necho "end $1 $$" >> ${JSON.stringify(log)}\n`);
  chmodSync(path.join(bin, 'npm'), 0o755);

  /** Two runs at once: what the stand-in npm was asked to do, in order, and each run's stderr. */
  const twoAtOnce = async (what: string) => {
    rmSync(log, { force: true });
    const runs = await Promise.all([requireBuild(dir, bin), requireBuild(dir, bin)]);
    t.same(
      runs.map((r) => r.code),
      [0, 0],
      `${what}: both succeed`,
    );
    const text = existsSync(log) ? readFileSync(log, 'utf8').trim() : '';
    const lines = text ? text.split('\n').map((l) => l.split(' ')) : [];
    return { steps: lines.map((l) => `${l[0]} ${l[1]}`), pids: lines.map((l) => l[2]), stderr: runs.map((r) => r.stderr).join('') };
  };
  // The lock file is newer than what node_modules records: npm ci, by each run in turn.
  writeFileSync(path.join(dir, 'package-lock.json'), '{}');
  const ci = await twoAtOnce('npm ci');
  t.same(ci.steps, ['start ci', 'end ci', 'start ci', 'end ci'], 'npm ci: one after the other, never both at once');
  t.equal(ci.pids[0], ci.pids[1], 'npm ci: each run ends before the next starts');

  // node_modules current, a build input changed since the stamp: the first builds, the second finds it current.
  mkdirSync(path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{}');
  const past = new Date(Date.now() - 60_000);
  utimesSync(path.join(dir, 'package-lock.json'), past, past);
  mkdirSync(path.join(dir, 'scripts'));
  writeFileSync(path.join(dir, 'scripts/changed.ts'), '');
  const build = await twoAtOnce('the build');
  t.same(build.steps, ['start run', 'end run'], 'built once, under the lock');
  t.match(build.stderr, /the build is current/, 'the other run waited for it and found it current');

  // Nothing changed since: no build. A source changed: built again.
  t.same((await twoAtOnce('nothing changed')).steps, [], 'nothing run');
  writeFileSync(path.join(dir, 'scripts/changed.ts'), 'changed');
  t.same((await twoAtOnce('a source changed')).steps, ['start run', 'end run'], 'built again');

  // A build that fails leaves no stamp: the next run builds, never taking a half-made dist/ for current.
  writeFileSync(path.join(bin, 'npm'), `#!/bin/sh\necho "start $1 $$" >> ${JSON.stringify(log)}\nexit 1\n`);
  writeFileSync(path.join(dir, 'scripts/changed.ts'), 'changed again');
  rmSync(log, { force: true });
  t.not((await requireBuild(dir, bin)).code, 0, 'a failed build fails');
  t.equal(existsSync(path.join(dir, 'dist/.build-stamp')), false, 'and leaves no stamp');
  t.same(readFileSync(log, 'utf8').trim().split(' ').slice(0, 2), ['start', 'run'], 'it was tried');
  t.match(await requireBuild(dir, bin), { code: 1 }, 'the next run tries again (and fails again here)');
});

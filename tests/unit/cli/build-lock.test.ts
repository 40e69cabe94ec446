// Several `npm start` at once (one per box of a mesh) take turns installing and building: the
// prerequisite step of scripts/lib/prereqs.sh run twice concurrently, with a stand-in `npm` that
// records when it runs, never runs two at once.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
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

  const check = async (what: string, expectedCommand: string) => {
    rmSync(log, { force: true });
    const runs = await Promise.all([requireBuild(dir, bin), requireBuild(dir, bin)]);
    t.same(
      runs.map((r) => r.code),
      [0, 0],
      `${what}: both succeed`,
    );
    const lines = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' '));
    t.same(
      lines.map((l) => `${l[0]} ${l[1]}`),
      [`start ${expectedCommand}`, `end ${expectedCommand}`, `start ${expectedCommand}`, `end ${expectedCommand}`],
      `${what}: one after the other, never both at once`,
    );
    t.equal(lines[0]![2], lines[1]![2], `${what}: each run ends before the next starts`);
  };
  // The lock file is newer than what node_modules records: npm ci.
  writeFileSync(path.join(dir, 'package-lock.json'), '{}');
  await check('npm ci', 'ci');
  // node_modules current: the build.
  mkdirSync(path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'node_modules/.package-lock.json'), '{}');
  utimesSync(path.join(dir, 'package-lock.json'), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  await check('the build', 'run');
});

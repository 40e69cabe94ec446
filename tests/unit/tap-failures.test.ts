// The failure digest `npm test` prints after the coverage table (scripts/lib/tap-failures.mjs),
// read from real tap output: a failed assertion inside nested subtests, a plain t.fail, and a
// test file killed by a signal. Each failure is named once, with its path and what differed.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';

const script = path.join(repoRoot, 'scripts/lib/tap-failures.mjs');
const fixture = (name: string) => path.join(repoRoot, 'tests/fixtures/tap', name);
const digest = (...args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: 'utf8' });

t.test('nested failures: each assertion once, with its subtest path, location and diff', async (t) => {
  const run = digest(fixture('nested-failures.tap'));
  t.equal(run.status, 0);
  const lines = run.stdout.split('\n');
  t.equal(lines[0], 'failed assertions (2):');
  t.same(
    lines.filter((l) => l.startsWith('✖')),
    ['✖ tests/zz-fail.tmp.test.ts › a › deep › exits 2', '✖ tests/zz-fail.tmp.test.ts › b › plain failure'],
    'the leaf assertions only, not the subtests and file that failed because of them',
  );
  t.match(run.stdout, /exits 2\n {4}at: tests\/zz-fail\.tmp\.test\.ts:3\n/, 'the location comes first');
  t.match(run.stdout, /- {2}"status": 2,\n {4} {2}\+ {2}"status": null,/, 'the diff is kept');
  t.notMatch(run.stdout, /source:|stack:|fileName:/, 'the source excerpt and stack are left out');
});

t.test('a test file killed by a signal: the file and the signal, without how tap started it', async (t) => {
  const run = digest(fixture('killed-file.tap'));
  t.equal(run.status, 0);
  t.equal(run.stdout, 'failed assertions (1):\n✖ tests/zz-fail.tmp.test.ts\n    exitCode: null\n    signal: SIGKILL\n');
});

t.test('a run with no failure prints nothing; no file prints usage and exits 2', async (t) => {
  const run = digest(fixture('passing.tap'));
  t.equal(run.status, 0);
  t.equal(run.stdout, '');
  const bare = digest();
  t.equal(bare.status, 2);
  t.match(bare.stdout, /^usage: node scripts\/lib\/tap-failures\.mjs TAP_LOG/);
  t.equal(digest('--help').status, 0);
});

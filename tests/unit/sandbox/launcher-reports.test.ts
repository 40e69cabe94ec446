// The launcher's ready pipe as the box reads it: the ready byte, then its reports, read from a real pipe whatever the writes' split (a report in the same read as the byte is not lost).
import { spawn } from 'node:child_process';
import t from 'tap';
import type { LimitReason } from '../../../management-api/src/sandbox/limits/budgets.js';
import { followKeeperReports } from '../../../management-api/src/sandbox/keeper-reports.js';
import { launcherReady } from '../../../management-api/src/sandbox/namespace-sandbox.js';

/** Run `script` with a pipe as fd 3, wait for its ready byte as the box does, then follow its reports until it exits. */
async function readyThenReports(script: string): Promise<{ rest: string; reports: Array<[LimitReason, number]> }> {
  const child = spawn('/bin/sh', ['-c', script], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  const closed = new Promise((resolve) => child.on('close', resolve));
  const pipe = child.stdio[3] as NodeJS.ReadableStream;
  const rest = await launcherReady(pipe);
  const reports: Array<[LimitReason, number]> = [];
  followKeeperReports(pipe, (reason, bytes) => reports.push([reason, bytes]), rest);
  await closed;
  return { rest, reports };
}

t.test('a report written with the ready byte in one write is read, not lost with the byte', async (t) => {
  const r = await readyThenReports('printf "rlimit:memory 4096\\n" >&3');
  t.equal(r.rest, 'limit:memory 4096\n', 'launcherReady hands back what followed the byte');
  t.same(r.reports, [['limit:memory', 4096]]);
});

t.test('a report written later, split across writes, among lines that are not reports', async (t) => {
  const r = await readyThenReports('printf r >&3; sleep 0.1; printf "limit:mem" >&3; sleep 0.1; printf "ory 5\\nnonsense 1\\nlimit:cpu 3\\n" >&3');
  t.equal(r.rest, '', 'the byte came alone');
  t.same(r.reports, [['limit:memory', 5]], 'only the reasons a launcher reports are taken; a line is whole before it counts');
});

t.test('a pipe that closes before the byte: ready with nothing after it', async (t) => {
  const r = await readyThenReports('exec 3>&-');
  t.same(r, { rest: '', reports: [] });
});

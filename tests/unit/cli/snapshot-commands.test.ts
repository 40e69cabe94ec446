// `agentbox snapshot create/ls/rm/restore` and `run --from-snapshot` as the installed bin against a real box with real sandboxed agents.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';
import type { SnapshotRecord } from '../../../scripts/cli/snapshot-format.js';

const TOML = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-snapshots-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

const box = await startTestServer({ toml: TOML, env: { PATH: '/usr/bin:/bin' } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
const cli = (...args: string[]) => runAgentboxAsync([...args.slice(0, 2), ...target, ...args.slice(2)], { cwd: work, env });

t.test('create, ls, run --from-snapshot, restore, rm', async (t) => {
  const started = await runAgentboxAsync(['run', ...target, '-d', '--name', 'worker', '--', '/bin/sh', '-c', 'echo v1 > state.txt; exec sleep 60'], {
    cwd: work,
    env,
  });
  t.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  const file = path.join(box.paths.workspaceDir, 'worker/state.txt');
  await waitFor('the agent wrote its file', () => readFileSync(file, 'utf8') === 'v1\n');

  const made = await cli('snapshot', 'create', '--label', 'good state', 'worker');
  t.equal(made.code, 0, made.stderr);
  t.match(made.stdout, /^snp_[A-Za-z0-9_-]{12} {2}1 files, 3 B, 3 B added \(0 unchanged\) in \d+ ms$/m, 'one line about it');
  const sid = made.stdout.split(' ')[0]!;

  const ls = await cli('snapshot', 'ls');
  t.equal(ls.code, 0, ls.stderr);
  t.match(ls.stdout, /^SNAPSHOT +AGENT +AGENT ID +CREATED +FILES +SIZE +ADDED +CLONE +LABEL$/m);
  t.match(ls.stdout, new RegExp(`^${sid} +worker +${id} +\\S+ \\S+Z +1 +3 B +3 B +no +good state$`, 'm'));
  t.match(JSON.parse((await cli('snapshot', 'ls', '--json', '--agent', 'worker')).stdout), [{ id: sid, label: 'good state' }]);

  const show = await cli('snapshot', 'show', sid);
  t.equal(show.code, 0, show.stderr);
  t.match(show.stdout, new RegExp(`^snapshot +${sid} {2}"good state"$`, 'm'));
  t.match(show.stdout, new RegExp(`^agent +worker \\(${id}\\), working directory worker$`, 'm'));
  t.match(show.stdout, /^holds +1 files, 0 directories, 0 links: 3 B$/m);
  t.match(show.stdout, /^shares +0 B with other snapshots$/m, 'alone in the store, it shares nothing');
  t.match(show.stdout, /^alone +3 B \(what deleting it frees\)$/m);
  t.match(show.stdout, /^charged +3 B /m);
  t.match(show.stdout, /^clone +no: /m);
  const shown = JSON.parse((await cli('snapshot', 'show', '--json', sid)).stdout) as SnapshotRecord;
  t.same(shown.sharing, { storedBytes: 3, sharedBytes: 0, exclusiveBytes: 3, chargedBytes: 3 }, '--json: the record, with its sharing');
  const second = await cli('snapshot', 'create', 'worker');
  const sid2 = second.stdout.split(' ')[0]!;
  t.match(
    (await cli('snapshot', 'show', sid)).stdout,
    /^shares +3 B with other snapshots$[\s\S]*^alone +0 B [\s\S]*^charged +3 B /m,
    'a second of the same bytes: the first shares them, frees nothing when deleted, and still pays for them',
  );
  t.match((await cli('snapshot', 'show', sid2)).stdout, /^charged +0 B /m, 'the second pays nothing while the first is kept');
  t.equal((await cli('snapshot', 'rm', sid2)).code, 0);
  t.match(await cli('snapshot', 'show', 'snp_AAAAAAAAAAAA'), { code: 1, stderr: /not found/ }, 'an unknown id');
  t.match(await cli('snapshot', 'show'), { code: 2, stderr: /name one snapshot/ });

  const fork = await runAgentboxAsync(['run', ...target, '--name', 'forked', '--from-snapshot', sid, '--', '/bin/cat', 'state.txt'], { cwd: work, env });
  t.equal(fork.code, 0, fork.stderr);
  t.equal(fork.stdout, 'v1\n', 'the fork starts on the snapshot');

  t.match(await cli('snapshot', 'restore', 'worker', sid), { code: 1, stderr: /has ended|running/ }, 'refused while the agent runs');
  await runAgentboxAsync(['kill', ...target, '--signal', 'KILL', id], { cwd: work, env });
  writeFileSync(file, 'v2\n');
  t.match(
    await cli('snapshot', 'restore', sid, 'worker'),
    { code: 1, stderr: new RegExp(`no agent "${sid}".*The agent comes first, then the snapshot: agentbox snapshot restore worker ${sid}`) },
    'the two the other way round: said so, with the command that was meant',
  );
  t.match(
    await cli('snapshot', 'restore', 'gone', sid),
    { code: 1, stderr: new RegExp(`no agent "gone".*To start a new agent on the snapshot instead: agentbox run --from-snapshot ${sid} -- COMMAND`) },
    'no such agent: a fork is named as the way to start from the snapshot',
  );
  const restored = await cli('snapshot', 'restore', 'worker', sid);
  t.equal(restored.code, 0, restored.stderr);
  t.match(restored.stdout, new RegExp(`^${id} {2}restored from ${sid}: 1 files, 3 B$`, 'm'));
  t.equal(readFileSync(file, 'utf8'), 'v1\n', 'in place');

  const rm = await cli('snapshot', 'rm', sid);
  t.equal(rm.code, 0, rm.stderr);
  t.match(rm.stdout, `${sid}  deleted, 3 B freed`);
  t.match(await cli('snapshot', 'rm', sid), { code: 1, stderr: /not found/ });
  t.match(await cli('snapshot', 'create'), { code: 2, stderr: /name one agent/ });
});

t.test('--help on each', async (t) => {
  for (const sub of ['create', 'ls', 'show', 'rm', 'restore']) {
    const help = await runAgentboxAsync(['snapshot', sub, '--help'], { cwd: work, env });
    t.equal(help.code, 0);
    t.match(help.stdout, new RegExp(`^Usage: agentbox snapshot ${sub}`), sub);
  }
  t.match((await runAgentboxAsync(['snapshot', '--help'], { cwd: work, env })).stdout, /snapshot create[\s\S]*snapshot restore/);
  t.match((await runAgentboxAsync(['run', '--help'], { cwd: work, env })).stdout, /--from-snapshot ID/);
});

// `agentbox snapshot create/ls/rm/restore/diff/files/cat` and `run --from-snapshot` as the installed bin against a real box with real sandboxed agents.
import t from 'tap';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { flipChunkByte } from '../../helpers/damaged-chunk.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';
import type { SnapshotRecord } from '../../../scripts/cli/snapshot-format.js';
import { snapshotStoreDir } from '../../../management-api/src/snapshots/snapshots-plugin.js';

// The policy refuses one name only, so `run --count` meets one refusal among its starts.
const TOML =
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n' +
  '[[policy.rules]]\nid = "not-the-second"\naction = "spawn"\ndecision = "deny"\nagent = "refused-2"\n';
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-snapshots-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

const box = await startTestServer({ toml: TOML, env: { PATH: '/usr/bin:/bin' } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
const cli = (...args: string[]) => runAgentboxAsync([...args.slice(0, 2), ...target, ...args.slice(2)], { cwd: work, env });
/** `agentbox run -d --name NAME -- /bin/sh -c SCRIPT`, its exit code and output. */
const startAgent = (name: string, script: string) =>
  runAgentboxAsync(['run', ...target, '-d', '--name', name, '--', '/bin/sh', '-c', script], { cwd: work, env });

t.test('create, ls, run --from-snapshot, restore, rm', async (t) => {
  const started = await startAgent('worker', 'echo v1 > state.txt; exec sleep 60');
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
  t.match(show.stdout, /^holds +1 file, 0 directories, 0 links: 3 B$/m);
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

  t.match(
    await cli('snapshot', 'restore', 'worker', sid),
    { code: 1, stderr: /the agent is running, and a workspace is restored in place only once its agent has ended: `agentbox kill agt_\S+` first/ },
    'refused while the agent runs, saying how to end it',
  );
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

t.test('run --count: several forks of one snapshot at once, each on its own copy, a refusal among them said', async (t) => {
  const started = await startAgent('origin', 'echo good > state.txt; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  await waitFor('the agent wrote its file', () => existsSync(path.join(box.paths.workspaceDir, 'origin/state.txt')));
  const sid = (await cli('snapshot', 'create', 'origin')).stdout.split(' ')[0]!;
  const run = (...args: string[]) => runAgentboxAsync(['run', ...target, ...args], { cwd: work, env });

  const three = await run(
    '-d',
    '--count',
    '3',
    '--name',
    'try',
    '--from-snapshot',
    sid,
    '--',
    '/bin/sh',
    '-c',
    'echo changed-by-$AGENTBOX_AGENT_ID >> state.txt; exec sleep 60',
  );
  t.equal(three.code, 0, three.stderr);
  const ids = three.stdout.trim().split('\n');
  t.equal(ids.length, 3, 'one id a line');
  t.equal(new Set(ids).size, 3);
  const ps = JSON.parse((await runAgentboxAsync(['ps', ...target, '--json'], { cwd: work, env })).stdout) as Array<{ id: string; name: string; cwd: string }>;
  const forks = ids.map((id) => ps.find((a) => a.id === id)!);
  t.same(
    forks.map((a) => a.name),
    ['try-1', 'try-2', 'try-3'],
    'named NAME-1 … NAME-N, in the order of the ids',
  );
  t.equal(new Set(forks.map((a) => a.cwd)).size, 3, 'each works in a directory of its own');
  for (const fork of forks) {
    const file = path.join(box.paths.workspaceDir, fork.cwd, 'state.txt');
    await waitFor(`${fork.name} wrote`, () => readFileSync(file, 'utf8').includes('changed-by-'));
    t.equal(readFileSync(file, 'utf8'), `good\nchanged-by-${fork.id}\n`, `${fork.name} started on the snapshot and sees no other fork's write`);
  }
  t.equal(readFileSync(path.join(box.paths.workspaceDir, 'origin/state.txt'), 'utf8'), 'good\n', 'the origin untouched');

  const partly = await run('-d', '--json', '--count', '3', '--name', 'refused', '--from-snapshot', sid, '--', '/bin/sleep', '60');
  t.equal(partly.code, 1, 'one refused: exit 1');
  const answer = JSON.parse(partly.stdout) as { started: Array<{ name: string }>; refused: Array<{ name: string; status: number; error: string }> };
  t.same(
    answer.started.map((a) => a.name),
    ['refused-1', 'refused-3'],
    'the others started',
  );
  t.match(answer.refused, [{ name: 'refused-2', status: 403, error: 'ABX_ERR_POLICY_DENIED' }]);
  t.match(partly.stderr, /^agentbox: starting refused-2: 403 ABX_ERR_POLICY_DENIED: /m, 'the refusal named');
  t.match(partly.stderr, /2 of 3 started and run on \(agentbox kill refused-1 refused-3 to end them\)/);

  t.match(await run('--count', '2', '--', 'true'), { code: 2, stderr: /--count starts several agents: add -d/ });
  t.match(await run('-d', '--count', '65', '--', 'true'), { code: 2, stderr: /--count "65": give a whole number from 1 to 64/ });
  t.match(await run('-d', '--count', '2', '--cwd', 'here', '--from-snapshot', sid, '--', 'true'), { code: 2, stderr: /a fork needs a directory of its own/ });
  t.match(await run('-d', '--count', '10', '--name', 'n'.repeat(62), '--', 'true'), { code: 2, stderr: /too long for --count 10/ });
  await runAgentboxAsync(['kill', ...target, '--signal', 'KILL', ...ids, 'origin', 'refused-1', 'refused-3'], { cwd: work, env });
});

t.test('run --checkpoint-every: the box snapshots the agent on its timer, labelled checkpoint', async (t) => {
  const started = await runAgentboxAsync(
    ['run', ...target, '-d', '--name', 'checked', '--checkpoint-every', '1s', '--checkpoint-keep', '1', '--', '/bin/sh', '-c', 'echo v > f; exec sleep 60'],
    { cwd: work, env },
  );
  t.equal(started.code, 0, started.stderr);
  // One a second: the deadline is for a box that makes none.
  const checkpoints = await waitFor(
    'a checkpoint',
    async () => {
      const listed = JSON.parse((await cli('snapshot', 'ls', '--json', '--agent', 'checked')).stdout) as SnapshotRecord[];
      return listed.some((s) => s.label === 'checkpoint') ? listed : undefined;
    },
    30_000,
  );
  t.match(checkpoints, [{ label: 'checkpoint', agent: { name: 'checked' } }]);
  t.match(await runAgentboxAsync(['run', ...target, '-d', '--checkpoint-keep', '2', '--', 'true'], { cwd: work, env }), {
    code: 2,
    stderr: /--checkpoint-keep needs --checkpoint-every/,
  });
  await runAgentboxAsync(['kill', ...target, '--signal', 'KILL', 'checked'], { cwd: work, env });
});

t.test('warm: copies built ahead, --wait until ready, a fork takes one', async (t) => {
  const started = await startAgent('warmed', 'echo w > w.txt; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  await waitFor('the agent wrote its file', () => existsSync(path.join(box.paths.workspaceDir, 'warmed/w.txt')));
  const made = await cli('snapshot', 'create', '--json', 'warmed');
  const sid = (JSON.parse(made.stdout) as SnapshotRecord).id;
  const warm = await cli('snapshot', 'warm', '--json', '--wait', sid, '2');
  t.equal(warm.code, 0, warm.stderr);
  t.match(JSON.parse(warm.stdout), { snapshot: sid, warm: { wanted: 2, ready: 2 } });
  t.match(warm.stderr, /2 of 2 ready/, 'progress said on stderr');
  t.match((await cli('snapshot', 'show', sid)).stdout, /^warm +2 of 2 copies ready for forks$/m, 'show says how many are ready');
  const fork = await runAgentboxAsync(['run', ...target, '-d', '--name', 'warm-fork', '--from-snapshot', sid, '--', '/bin/sh', '-c', 'exec sleep 60'], {
    cwd: work,
    env,
  });
  t.equal(fork.code, 0, fork.stderr);
  t.equal(box.logs.events('SnapshotForked').at(-1)?.['warm'], true, 'the fork took a warm copy');
  t.match((await cli('snapshot', 'warm', sid, '0')).stdout, new RegExp(`^${sid}  0 of 0 warm forks ready`));
  t.match(await cli('snapshot', 'warm', sid, '33'), { code: 2, stderr: /not a count of copies from 0 to 32/ });
  t.match(await cli('snapshot', 'warm', sid), { code: 2, stderr: /how many copies/ });
  t.match(await cli('snapshot', 'warm', 'snp_AAAAAAAAAAAA', '1'), { code: 1, stderr: /404/ });
  for (const name of ['warmed', 'warm-fork']) await runAgentboxAsync(['kill', ...target, '--signal', 'KILL', name], { cwd: work, env });
});

t.test('prune: the newest of each agent name kept, labelled ones spared, a dry run deletes nothing', async (t) => {
  const started = await startAgent('pruned', 'echo one > f; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  await waitFor('the agent wrote its file', () => existsSync(path.join(box.paths.workspaceDir, 'pruned/f')));
  const made: string[] = [];
  for (const label of ['', 'keep me', '', '']) {
    writeFileSync(path.join(box.paths.workspaceDir, 'pruned/f'), `${made.length}\n`);
    const r = await cli('snapshot', 'create', ...(label ? ['--label', label] : []), 'pruned');
    t.equal(r.code, 0, r.stderr);
    made.push(r.stdout.split(' ')[0]!);
  }
  const left = async () => (JSON.parse((await cli('snapshot', 'ls', '--json', '--agent', 'pruned')).stdout) as SnapshotRecord[]).map((s) => s.id).sort();

  const dry = await cli('snapshot', 'prune', '--keep', '1', '--agent', 'pruned', '--dry-run');
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, new RegExp(`^${made[0]}  pruned  \\S+  would be deleted$`, 'm'));
  t.match(dry.stdout, /^2 would be deleted, 2 kept \(--dry-run: nothing deleted\)$/m);
  t.same(await left(), [...made].sort(), 'a dry run deletes nothing');

  t.match(
    await cli('snapshot', 'prune', '--keep', '1', '--agent', 'pruned', '--older-than', '1d'),
    { code: 0, stdout: /^0 deleted, 0 B freed, 4 kept$/m },
    'none older than a day',
  );
  const pruned = await cli('snapshot', 'prune', '--json', '--keep', '1', '--agent', 'pruned');
  t.equal(pruned.code, 0, pruned.stderr);
  const answer = JSON.parse(pruned.stdout) as { deleted: string[]; kept: number; freedBytes: number; dryRun: boolean };
  t.same(answer.deleted, [made[0], made[2]], 'the unlabelled ones past the newest, oldest first');
  t.equal(answer.kept, 2);
  t.equal(answer.dryRun, false);
  t.same(await left(), [made[1], made[3]].sort(), 'the newest and the labelled one stay');
  t.equal((await cli('snapshot', 'prune', '--keep', '0', '--agent', 'pruned', '--labelled')).code, 0);
  t.same(await left(), [], '--labelled: those too');

  t.match(await cli('snapshot', 'prune'), { code: 2, stderr: /say what to keep: --keep N/ });
  t.match(await cli('snapshot', 'prune', '--older-than', '7days'), { code: 2, stderr: /give a number and a unit/ });
  t.match(await cli('snapshot', 'prune', '--keep', '1', made[0]!), { code: 2, stderr: /takes no operand.*agentbox snapshot rm ID/ });
  await runAgentboxAsync(['kill', ...target, '--signal', 'KILL', 'pruned'], { cwd: work, env });
});

t.test('diff, files and cat: inside snapshots without forking them', async (t) => {
  const started = await startAgent('inspected', 'mkdir src; echo one > src/a.ts; echo two > src/b.ts; ln -s src/a.ts link; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  const dir = path.join(box.paths.workspaceDir, 'inspected');
  await waitFor('the agent made its files', () => readFileSync(path.join(dir, 'src/b.ts'), 'utf8') === 'two\n');
  const before = (await cli('snapshot', 'create', 'inspected')).stdout.split(' ')[0]!;
  writeFileSync(path.join(dir, 'src/a.ts'), 'one, changed\n');
  rmSync(path.join(dir, 'src/b.ts'));
  mkdirSync(path.join(dir, 'docs'));
  writeFileSync(path.join(dir, 'docs/notes.md'), '# notes\n');
  const after = (await cli('snapshot', 'create', 'inspected')).stdout.split(' ')[0]!;

  const diff = await cli('snapshot', 'diff', before, after);
  t.equal(diff.code, 0, diff.stderr);
  t.equal(
    diff.stdout,
    [
      'A  docs/',
      'A  docs/notes.md  8 B',
      'M  src/a.ts  content: 4 B → 13 B',
      'D  src/b.ts  4 B',
      `2 added (8 B), 1 modified, 1 deleted (4 B) from ${before} to ${after}`,
      '',
    ].join('\n'),
    'a change a line in path order, then the counts',
  );
  const cut = await cli('snapshot', 'diff', '--limit', '1', before, after);
  t.match(cut.stdout, /^A {2}docs\/\n… 3 more changes not listed/, '--limit cuts the list, not the counts');
  t.match(JSON.parse((await cli('snapshot', 'diff', '--json', before, after)).stdout), {
    from: before,
    to: after,
    counts: { added: 2, modified: 1, deleted: 1 },
  });
  t.match((await cli('snapshot', 'diff', after, after)).stdout, /^no changes from /);
  t.match(await cli('snapshot', 'diff', before), { code: 2, stderr: /give two snapshots, the earlier first/ });
  t.match(await cli('snapshot', 'diff', '--limit', '0', before, after), { code: 2, stderr: /--limit takes a whole number/ });
  t.match(await cli('snapshot', 'diff', 'snp_AAAAAAAAAAAA', after), { code: 1, stderr: /404 ABX_ERR_NOT_FOUND: .*snp_AAAAAAAAAAAA/ });

  // More changes than one answer lists (10,000): the command pages through them all, or up to --limit.
  mkdirSync(path.join(dir, 'many'));
  for (let i = 0; i < 10_050; i++) writeFileSync(path.join(dir, 'many', `f${String(i).padStart(5, '0')}`), '');
  const many = (await cli('snapshot', 'create', 'inspected')).stdout.split(' ')[0]!;
  const all = await cli('snapshot', 'diff', after, many);
  t.equal(all.code, 0, all.stderr);
  const lines = all.stdout.trimEnd().split('\n');
  t.equal(lines.length, 10_052, 'every change a line, then the counts');
  t.same([lines[0], lines[1], lines.at(-2)], ['A  many/', 'A  many/f00000  0 B', 'A  many/f10049  0 B'], 'in path order across pages');
  t.equal(lines.at(-1), `10051 added (0 B), 0 modified, 0 deleted (0 B) from ${after} to ${many}`);
  const upTo = await cli('snapshot', 'diff', '--limit', '10020', after, many);
  t.match(upTo.stdout, /^A {2}many\/f10018 {2}0 B\n… 31 more changes not listed/m, '--limit beyond one page');
  const json = JSON.parse((await cli('snapshot', 'diff', '--json', after, many)).stdout) as { changes: unknown[]; truncated: boolean; nextCursor?: string };
  t.same([json.changes.length, json.truncated, json.nextCursor], [10_051, false, undefined], '--json: one record of every change');

  const top = await cli('snapshot', 'files', before);
  t.equal(top.code, 0, top.stderr);
  t.match(top.stdout, /^lrwxrwxrwx +\S+ \S+Z {2}link -> src\/a\.ts$/m, 'a link with its target');
  t.match(top.stdout, /^drwxr-xr-x +\S+ \S+Z {2}src\/$/m);
  t.match((await cli('snapshot', 'files', before, './src/')).stdout, /^-rw-r--r-- {2}4 B {2}\S+ \S+Z {2}a\.ts\n-rw-r--r-- {2}4 B {2}\S+ \S+Z {2}b\.ts$/m);
  t.match(JSON.parse((await cli('snapshot', 'files', '--json', before, 'src')).stdout), { path: 'src', entries: [{ name: 'a.ts' }, { name: 'b.ts' }] });
  t.match(await cli('snapshot', 'files', before, 'src/a.ts'), { code: 1, stderr: /is not a directory/ });

  t.match(await cli('snapshot', 'cat', before, 'src/a.ts'), { code: 0, stdout: 'one\n' }, 'the file as it was');
  t.match(await cli('snapshot', 'cat', after, 'src/a.ts'), { code: 0, stdout: 'one, changed\n' });
  t.match(await cli('snapshot', 'cat', before, 'src/b.ts'), { code: 0, stdout: 'two\n' }, 'a file the workspace no longer has');
  t.match(await cli('snapshot', 'cat', before, 'src'), {
    code: 1,
    stderr: new RegExp(`is a directory: list it \\(\\?list; agentbox snapshot files ${before} src\\)`),
  });
  t.match(await cli('snapshot', 'cat', before, 'link'), { code: 1, stderr: /symbolic link to "src\/a\.ts" \(links are never followed\)/ });
  t.match(await cli('snapshot', 'cat', before, 'nope'), { code: 1, stderr: /no such path .*holds no "nope"/ });
  t.match(await cli('snapshot', 'cat', before), { code: 2, stderr: /give a snapshot and a file in it/ });

  // agentbox cp takes a snapshot's id where it takes an agent, as a source only.
  const copied = await runAgentboxAsync(['cp', ...target, `${before}:src`, 'src-then'], { cwd: work, env });
  t.equal(copied.code, 0, copied.stderr);
  t.equal(readFileSync(path.join(work, 'src-then/a.ts'), 'utf8'), 'one\n', 'a directory out of a snapshot, as it was');
  t.equal(readFileSync(path.join(work, 'src-then/b.ts'), 'utf8'), 'two\n');
  t.match(await runAgentboxAsync(['cp', ...target, `${before}:src/b.ts`, '-'], { cwd: work, env }), { code: 0, stdout: 'two\n' }, 'a file to stdout');
  t.match(await runAgentboxAsync(['cp', ...target, 'src-then', `${before}:x`], { cwd: work, env }), {
    code: 2,
    stderr: new RegExp(`${before} is a snapshot, which is never written: fork it`),
  });
  // What is not there is said as the box says it: a path the snapshot lacks, a snapshot the box lacks (its top too); nothing is written.
  for (const [from, said] of [
    [`${before}:nope`, `${before}:nope: snapshot ${before} holds no "nope"`],
    ['snp_AAAAAAAAAAAA:src', 'snp_AAAAAAAAAAAA:src: snapshot "snp_AAAAAAAAAAAA" not found'],
    ['snp_AAAAAAAAAAAA:', 'snp_AAAAAAAAAAAA:: snapshot "snp_AAAAAAAAAAAA" not found'],
  ] as const) {
    const missing = await runAgentboxAsync(['cp', ...target, from, 'not-written'], { cwd: work, env });
    t.match(missing, { code: 1, stderr: new RegExp(`^agentbox cp: ${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm') }, from);
  }
  t.notOk(existsSync(path.join(work, 'not-written')), 'nothing written');
});

t.test("a file cut off by a damaged store: said as the box's doing, nothing left under the name", async (t) => {
  const started = await startAgent('damaged', 'head -c 2621440 /dev/urandom > big.part && mv big.part big.bin; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  const file = path.join(box.paths.workspaceDir, 'damaged/big.bin');
  await waitFor('the agent wrote its file', () => existsSync(file));
  const sid = (await cli('snapshot', 'create', 'damaged')).stdout.split(' ')[0]!;
  // One byte of the second chunk flipped in its pack: the answer starts (its first chunk is whole) and is cut there.
  flipChunkByte(snapshotStoreDir(box.paths), readFileSync(file).subarray(1024 * 1024, 2 * 1024 * 1024), 7);

  const cat = await cli('snapshot', 'cat', sid, 'big.bin');
  t.equal(cat.code, 1);
  t.match(cat.stderr, `${sid}:big.bin: the box cut the download off midway`);
  t.match(cat.stderr, /what was written to stdout is incomplete\. The box's log says why: .*the store is damaged/);
  const out = path.join(work, 'big-out.bin');
  const copied = await runAgentboxAsync(['cp', ...target, `${sid}:big.bin`, out], { cwd: work, env });
  t.equal(copied.code, 1);
  t.match(copied.stderr, 'the box cut the download off midway');
  t.match(copied.stderr, `nothing was written to ${out}.`);
  t.notOk(existsSync(out), 'no file under the name');
  t.same(
    readdirSync(work).filter((n) => n.includes('big-out')),
    [],
    'and no part of it beside',
  );
});

t.test('a snapshot path never leaves the snapshot; cp out of one writes as out of an agent, modes kept', async (t) => {
  const started = await startAgent('paths', 'mkdir -p tree/sub && echo a > tree/sub/a.txt && chmod 750 tree tree/sub && exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  const dir = path.join(box.paths.workspaceDir, 'paths');
  await waitFor('the agent made its files', () => existsSync(path.join(dir, 'tree/sub/a.txt')) && (statSync(path.join(dir, 'tree')).mode & 0o777) === 0o750);
  const sid = (await cli('snapshot', 'create', 'paths')).stdout.split(' ')[0]!;
  const other = (await cli('snapshot', 'create', 'paths')).stdout.split(' ')[0]!;

  // A ".." would be resolved in the URL, reaching another route: refused before anything is sent.
  for (const args of [
    ['cat', sid, '../../../../v1/agents'],
    ['cat', sid, `../../${other}/files/tree/sub/a.txt`],
    ['cat', sid, 'tree/../../x'],
    ['files', sid, '../x'],
  ]) {
    const r = await cli('snapshot', ...args);
    t.match(r, { code: 2, stdout: '', stderr: /must not contain "\.\." segments/ }, args.join(' '));
  }
  for (const args of [
    ['cat', '..', 'v1/agents'],
    ['files', '.'],
    ['show', '..'],
    ['rm', '..'],
    ['diff', sid, '..'],
  ]) {
    t.match(await cli('snapshot', ...args), { code: 2, stderr: /"\.\.?" is not a snapshot id/ }, args.join(' '));
  }
  // Any other text that is no snapshot id is bad usage too, said before any request (the box named is not there).
  const offline = (...args: string[]) => runAgentboxAsync([...args, '--url', 'http://127.0.0.1:1'], { cwd: work, env });
  for (const args of [
    ['snapshot', 'show', 'snp_short'],
    ['snapshot', 'rm', sid, 'latest'],
    ['snapshot', 'diff', 'HEAD', sid],
    ['snapshot', 'files', 'snp_AAAAAAAAAAAA!'],
    ['snapshot', 'restore', 'worker', 'snp_x'],
    ['run', '-d', '--from-snapshot', 'my-good-state', '--', 'true'],
  ]) {
    t.match(await offline(...args), { code: 2, stdout: '', stderr: /is not a snapshot id: one is snp_ and 12 letters/ }, args.join(' '));
  }
  const unsent = await runAgentboxAsync(['snapshot', 'cat', '--url', 'http://127.0.0.1:1', sid, '../x'], { cwd: work, env });
  t.match(unsent, { code: 2, stderr: /must not contain/ }, 'refused before any request (the box named is not there)');
  t.match(await cli('snapshot', 'cat', sid, 'tree/sub/a.txt/'), { code: 1, stderr: /not a directory/ }, 'a file with a trailing / is refused, not read');
  t.match(await cli('snapshot', 'cat', sid, './tree/sub/a.txt'), { code: 0, stdout: 'a\n' }, '"." segments are still dropped');

  // Out of a snapshot: a device written into, a link written through, the top directory's mode kept.
  const dest = mkdtempSync(path.join(work, 'dest-'));
  const devNull = path.join(dest, 'null');
  execFileSync('mknod', [devNull, 'c', '1', '3']);
  t.teardown(() => rmSync(devNull, { force: true }));
  const cp = (...args: string[]) => runAgentboxAsync(['cp', ...target, ...args], { cwd: work, env });
  t.equal((await cp(`${sid}:tree/sub/a.txt`, devNull)).code, 0);
  t.ok(lstatSync(devNull).isCharacterDevice(), 'the device is still a device');
  writeFileSync(path.join(dest, 'real.txt'), 'before\n');
  symlinkSync('real.txt', path.join(dest, 'link.txt'));
  t.equal((await cp(`${sid}:tree/sub/a.txt`, path.join(dest, 'link.txt'))).code, 0);
  t.equal(readlinkSync(path.join(dest, 'link.txt')), 'real.txt', 'the link is left a link');
  t.equal(readFileSync(path.join(dest, 'real.txt'), 'utf8'), 'a\n', 'its target is written');
  t.match(await cp(`${sid}:tree`, devNull), { code: 1, stderr: /null is a character device/ });

  const copied = await cp(`${sid}:tree/sub`, 'fromsnap');
  t.equal(copied.code, 0, copied.stderr);
  t.equal(statSync(path.join(work, 'fromsnap')).mode & 0o777, 0o750, "the top directory's mode is kept");
});

t.test('cp out of a snapshot takes a file whose name is the longest a name may be (255 bytes)', async (t) => {
  // 85 three-byte characters: a temporary name beside it made of the whole name would pass 255 bytes.
  const name = '\u20ac'.repeat(85);
  const started = await startAgent('longname', `printf long > ${name} && exec sleep 60`);
  t.equal(started.code, 0, started.stderr);
  await waitFor('the agent made its file', () => existsSync(path.join(box.paths.workspaceDir, 'longname', name)));
  const sid = (await cli('snapshot', 'create', 'longname')).stdout.split(' ')[0]!;
  const dest = mkdtempSync(path.join(work, 'long-'));
  const copied = await runAgentboxAsync(['cp', ...target, `${sid}:${name}`, `${dest}/`], { cwd: work, env });
  t.equal(copied.code, 0, copied.stderr);
  t.equal(readFileSync(path.join(dest, name), 'utf8'), 'long');
  t.same(readdirSync(dest), [name], 'nothing but the file left beside it');
});

t.test('--help on each', async (t) => {
  for (const sub of ['create', 'ls', 'show', 'rm', 'prune', 'warm', 'restore', 'diff', 'files', 'cat']) {
    const help = await runAgentboxAsync(['snapshot', sub, '--help'], { cwd: work, env });
    t.equal(help.code, 0);
    t.match(help.stdout, new RegExp(`^Usage: agentbox snapshot ${sub}`), sub);
  }
  t.match((await runAgentboxAsync(['snapshot', '--help'], { cwd: work, env })).stdout, /snapshot create[\s\S]*snapshot restore/);
  t.match((await runAgentboxAsync(['run', '--help'], { cwd: work, env })).stdout, /--from-snapshot ID/);
});

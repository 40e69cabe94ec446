// `agentbox run/ps/logs/kill/exec` as the installed bin against a real box with real sandboxed agents: output, exit codes, names and prefixes, exec's confinement.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer, waitFor } from '../../api/support/harness.js';

const ORCHESTRATOR =
  '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[agents.profiles.napper]\ncommand = "/bin/sleep"\nargs = ["60"]\ntimeout_sec = 1\n';
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-agents-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));

type Agent = { id: string; name: string; state: string; exitCode?: number; signal?: string; execOf?: string; reason?: string };

const box = await startTestServer({ toml: ORCHESTRATOR, env: { PATH: '/usr/bin:/bin' } });
t.teardown(() => box.close());
const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
const cli = (...args: string[]) => runAgentboxAsync([...args.slice(0, 1), ...target, ...args.slice(1)], { cwd: work, env });
const status = async (id: string): Promise<Agent> => (await box.api(`/v1/agents/${id}`)).json['agent'] as Agent;

t.test('run -d, ps, logs, names and prefixes, kill', async (t) => {
  const started = await cli('run', '-d', '--name', 'sleeper', '--', '/bin/sh', '-c', 'echo hello-out; echo hello-err >&2; exec sleep 60');
  t.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  t.match(id, /^agt_[A-Za-z0-9_-]+$/, '-d prints the id');

  const ps = await cli('ps');
  t.equal(ps.code, 0, ps.stderr);
  t.match(ps.stdout, /^ID +NAME +PROFILE +COMMAND +STATE +PID +STARTED +DURATION +ENDED$/m);
  t.match(
    ps.stdout,
    new RegExp(`^${id} +sleeper +- +/bin/sh -c echo hello-out.* +running +\\d+ +\\S+Z +\\d+s$`, 'm'),
    'an ad-hoc agent: no profile; running: its running time',
  );
  const json = JSON.parse((await cli('ps', '--json')).stdout) as Agent[];
  t.match(json, [{ id, name: 'sleeper', state: 'running' }]);

  const logs = await waitFor('both lines in the logs', async () => {
    const r = await cli('logs', 'sleeper');
    return r.stdout.includes('hello-out') && r.stderr.includes('hello-err') ? r : undefined;
  });
  t.equal(logs.code, 0);
  t.equal(logs.stdout, 'hello-out\n', 'stdout to stdout, by name');
  t.equal(logs.stderr, 'hello-err\n', 'stderr to stderr');
  t.match(
    await cli('logs', '--tail', '1', id.slice(0, 8)),
    { stdout: '', stderr: 'hello-err\n' },
    'an id prefix; --tail 1 of the merged output is the stderr line',
  );

  t.match(await cli('logs', 'nobody'), { code: 1, stderr: /no agent "nobody"/ });
  mkdirSync(path.join(box.paths.workspaceDir, 'twin'));
  const twin = await cli('run', '-d', '--name', 'sleeper', '--cwd', 'twin', '--', '/bin/sleep', '60');
  t.equal(twin.code, 0, twin.stderr);
  t.match(await cli('logs', 'sleeper'), { code: 2, stderr: /"sleeper" is ambiguous: it is the name of 2 agents/ });

  const killed = await cli('kill', id, twin.stdout.trim());
  t.equal(killed.code, 0, killed.stderr);
  t.match(killed.stdout, new RegExp(`^${id} +terminated +SIGTERM`, 'm'));
  t.notMatch((await cli('ps')).stdout, id, 'ps leaves out the agents that ended');
  t.match((await cli('ps', '-a')).stdout, new RegExp(`^${id} +sleeper .* terminated .* SIGTERM$`, 'm'), 'ps -a shows them, with how they ended');
  t.match(await cli('kill', '--signal', 'HUP', id), { code: 2, stderr: /sends no other signal/ });
});

t.test('a root without the API key: the refusal says where the key was looked for', async (t) => {
  const keyless = path.join(work, 'keyless-root');
  const r = await runAgentboxAsync(['ps', '--url', box.server.apiUrl, '--root', keyless], { cwd: work, env });
  t.equal(r.code, 1);
  t.match(r.stderr, /401 ABX_ERR_AUTH_REQUIRED: .*; no API key was found at \S+keyless-root\S*: pass --root DIR \(the box's root/);
});

t.test('run without -d follows the output and exits with the agent’s code', async (t) => {
  const r = await cli('run', '--', '/bin/sh', '-c', 'echo to-out; echo to-err >&2; exit 3');
  t.equal(r.code, 3, r.stderr);
  t.equal(r.stdout, 'to-out\n');
  t.equal(r.stderr, 'to-err\n');
  const killedBySignal = await cli('run', '--', '/bin/sh', '-c', 'kill -KILL $$');
  t.equal(killedBySignal.code, 137, 'a signal N ends the CLI with 128 + N');
  t.match(await cli('run', '-i', '--', '/bin/true'), { code: 2, stderr: /-i needs -t/ });
  t.match(await cli('run'), { code: 2, stderr: /name a profile, or give a command after --/ });
  t.match(await cli('run', '--limit', 'memory', '--', '/bin/true'), { code: 2, stderr: /--limit "memory"/ });
  t.match(await cli('run', '--limit', 'entries=many', '--', '/bin/true'), { code: 2, stderr: /--limit entries: "many" is not a whole number/ });
  const counted = await cli('run', '-d', '--limit', 'entries=5000', '--limit', 'disk=1g', '--', '/bin/true');
  t.equal(counted.code, 0, counted.stderr);
  t.match(await status(counted.stdout.trim()), { limits: { entries: 5000, disk_bytes: 1024 ** 3 } }, 'the entry budget reaches the record');
});

t.test('run PROFILE sends the profile; ps -a shows it, and its timeout_sec end; an unknown profile is a clear error', async (t) => {
  const r = await cli('run', '-d', 'no-such-profile');
  t.equal(r.code, 1);
  t.match(r.stderr, /profile "no-such-profile" is not under \[agents\.profiles\] \(profiles: napper\)/, r.stderr);
  const napper = await cli('run', '-d', 'napper');
  t.equal(napper.code, 0, napper.stderr);
  const id = napper.stdout.trim();
  // However long the box takes to end it: the state is awaited, never a time.
  await waitFor('the timeout end', async () => (await status(id)).reason === 'timeout', 30_000);
  t.match(
    (await cli('ps', '-a')).stdout,
    new RegExp(`^${id} +napper +napper +/bin/sleep 60 +terminated +(?:\\d+ +)?\\S+Z +\\d+s +SIGTERM timeout$`, 'm'),
    'the profile, and how it ended: the signal and the reason',
  );
});

t.test('exec: the agent’s directory and uid, not another agent’s, ended with the agent', async (t) => {
  const host = await cli('run', '-d', '--name', 'host-a', '--', '/bin/sh', '-c', 'echo secret-of-a > mine.txt; id -u > uid.txt; exec sleep 60');
  const other = await cli('run', '-d', '--name', 'other-b', '--', '/bin/sh', '-c', 'echo secret-of-b > theirs.txt; echo ready; exec sleep 60');
  t.equal(host.code, 0, host.stderr);
  t.equal(other.code, 0, other.stderr);
  const a = host.stdout.trim();
  await waitFor('the other agent wrote its file', async () => (await cli('logs', 'other-b')).stdout.includes('ready'));

  const read = await waitFor('the agent’s files', async () => {
    const r = await cli('exec', 'host-a', '--', '/bin/cat', 'mine.txt', 'uid.txt');
    return r.code === 0 ? r : undefined;
  });
  t.match(read.stdout, /^secret-of-a\n\d+\n$/, 'the exec’d command runs in the agent’s directory and sees its files');
  const agentUid = read.stdout.split('\n')[1]!;
  const uid = await cli('exec', a, '--', '/usr/bin/id', '-u');
  t.equal(uid.code, 0, uid.stderr);
  t.equal(uid.stdout.trim(), agentUid, 'as the agent’s uid');
  if (process.getuid?.() === 0) t.not(agentUid, '0', 'on a root box, not root');
  const env = await cli('exec', a, '--env', 'EXTRA=x1', '--', '/bin/sh', '-c', 'echo "$AGENTBOX_AGENT_ID $AGENTBOX_EXEC_ID $EXTRA"');
  t.match(env.stdout, new RegExp(`^${a} agt_\\S+ x1\\n$`), 'the agent’s identity, its own exec id, the extra variable');

  const theirs = await cli('exec', a, '--', '/bin/cat', '../other-b/theirs.txt');
  t.not(theirs.code, 0, 'another agent’s directory cannot be read');
  t.notMatch(theirs.stdout, 'secret-of-b');
  t.match(theirs.stderr, /Permission denied|No such file/);
  t.match(await cli('exec', a, '--env', 'API_TOKEN=x', '--', '/bin/true'), { code: 1, stderr: /named like a secret/ });

  const child = (await cli('exec', '-d', a, '--', '/bin/sleep', '60')).stdout.trim();
  t.match(await status(child), { state: 'running', execOf: a });
  t.match((await cli('ps')).stdout, new RegExp(`^${child} +host-a \\(exec in ${a}\\)`, 'm'));
  t.match(await cli('logs', 'host-a'), { code: 0 }, "the name names the agent, not the command exec'd into it");
  t.equal((await cli('kill', 'host-a')).code, 0);
  const ended = await waitFor('the exec’d command ends with its agent', async () => {
    const s = await status(child);
    return s.state !== 'running' ? s : undefined;
  });
  t.match(ended, { state: 'terminated' });
  t.match(await cli('exec', a, '--', '/bin/true'), { code: 1, stderr: /is terminated: a command runs only in a running agent/ });
  t.match(await cli('exec', 'host-a', '--', '/bin/true'), { code: 1, stderr: /is terminated/ }, 'by name too, once both ended: the agent');
  await cli('kill', 'other-b');
});

t.test('exec refuses an agent token', async (t) => {
  const host = (await cli('run', '-d', '--name', 'token-holder', '--', '/bin/sh', '-c', 'exec sleep 60')).stdout.trim();
  t.teardown(() => cli('kill', '--signal', 'KILL', host));
  const token = await waitFor('the agent’s token', async () => {
    const r = await cli('exec', host, '--', '/bin/sh', '-c', 'echo "$AGENTBOX_TOKEN"');
    return r.stdout.trim() || undefined;
  });
  const other = (await cli('run', '-d', '--name', 'target-b', '--', '/bin/sleep', '60')).stdout.trim();
  t.teardown(() => cli('kill', '--signal', 'KILL', other));
  const res = await box.api(`/v1/agents/${other}/exec`, { body: { command: '/bin/true' }, auth: token });
  t.equal(res.status, 403, 'an agent token may not exec into another agent');
  const own = await box.api(`/v1/agents/${host}/exec`, { body: { command: '/bin/true' }, auth: token });
  t.equal(own.status, 403, 'nor into itself: exec is the operator’s');
});

// The orchestrator contract: what every orchestrator implementation does, exercised through the resolver's dispatching operations.
import type tap from 'tap';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import type { AgentProcess, OutputChunk } from '../../management-api/src/adapters/orchestrator/orchestrator-adapter.js';
import { waitFor } from '../helpers/wait.js';
import type { SlotHarness } from './pods-harness.js';
import { expectRefusedAsOff } from './support/off-refusals.js';

type Test = Parameters<Parameters<typeof tap.test>[0]>[0];
type Ops = SlotHarness<'orchestrator'>['ops'];

/** Names of the contract's cases; a skip list maps some of them to the reason they do not apply. */
export type OrchestratorCase = keyof typeof cases;

/**
 * Secrets in the environment of the process hosting the adapter. Runners must put them in the
 * resolver's `env` (and process.env): no agent may ever see them.
 */
export const PARENT_SECRETS: Readonly<Record<string, string>> = {
  AGENTBOX_TEST_PARENT_SECRET: 'parent-secret-value-7f3a',
  GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
  DATABASE_URL: 'postgres://app:hunter2@db.internal/app',
};

/** True when `pid` is gone (or a zombie nobody reaped yet: it runs no code). */
export function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

/** The parent pid of `pid`, from /proc. */
export function parentPid(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}

/** Poll status until the agent has ended. */
export async function ended(ops: Ops, id: string, timeoutMs = 15_000): Promise<AgentProcess> {
  return waitFor(
    `agent ${id} to end`,
    async () => {
      const s = await ops.status(id);
      return s.endedAt ? s : undefined;
    },
    timeoutMs,
  );
}

/** All chunks of an agent's output (following until it ends). */
export async function collect(ops: Ops, id: string, after?: number): Promise<OutputChunk[]> {
  const chunks: OutputChunk[] = [];
  const stream = await ops.output(id, { follow: true, signal: AbortSignal.timeout(20_000), ...(after === undefined ? {} : { after }) });
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

const sh = (name: string, script: string) => ({ name, command: '/bin/sh', args: ['-c', script] });
const joined = (chunks: OutputChunk[], stream?: OutputChunk['stream']) =>
  chunks
    .filter((c) => !stream || c.stream === stream)
    .map((c) => c.text)
    .join('');

const cases = {
  async 'spawn runs the command; list and status report it to the end'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('hello', 'echo hello'));
    t.match(agent, { name: 'hello', command: '/bin/sh', args: ['-c', 'echo hello'], state: 'running' });
    t.type(agent.id, 'string');
    t.type(agent.pid, 'number');
    t.ok(!Number.isNaN(Date.parse(agent.startedAt)));
    t.ok(
      (await ops.list()).some((a) => a.id === agent.id),
      'listed',
    );
    const done = await ended(ops, agent.id);
    t.match(done, { id: agent.id, state: 'exited', exitCode: 0 });
    t.ok(done.endedAt && Date.parse(done.endedAt) >= Date.parse(agent.startedAt));
  },

  async 'output: both streams, increasing seq, after skips, follow ends with the agent'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('talker', 'echo one; sleep 0.2; echo two >&2; sleep 0.2; echo three'));
    const chunks = await collect(ops, agent.id);
    t.equal(joined(chunks, 'stdout'), 'one\nthree\n');
    t.equal(joined(chunks, 'stderr'), 'two\n');
    t.ok(
      chunks.every((c, i) => i === 0 || c.seq > chunks[i - 1]!.seq),
      'seq strictly increases',
    );
    t.ok(chunks.every((c) => !Number.isNaN(Date.parse(c.time))));
    const later = [];
    for await (const c of await ops.output(agent.id, { after: chunks[0]!.seq, follow: false, signal: AbortSignal.timeout(5000) })) later.push(c);
    t.same(
      later.map((c) => c.seq),
      chunks.slice(1).map((c) => c.seq),
      'after skips what was seen',
    );
    const again = await collect(ops, agent.id);
    t.same(joined(again), joined(chunks), 'following an ended agent replays and ends');
  },

  async 'output: aborting a follow ends the stream promptly'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('long', 'echo started; exec sleep 30'));
    const controller = new AbortController();
    const stream = await ops.output(agent.id, { follow: true, signal: controller.signal });
    const started = Date.now();
    const seen: string[] = [];
    for await (const c of stream) {
      seen.push(c.text);
      controller.abort();
    }
    t.same(seen, ['started\n']);
    t.ok(Date.now() - started < 8000, 'the iteration ended after the abort');
    await ops.terminate(agent.id, 1000);
  },

  async 'a non-zero exit is failed, with its code'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('fails', 'exit 3'));
    t.match(await ended(ops, agent.id), { state: 'failed', exitCode: 3 });
  },

  async 'environment: the allowlist and explicit values only, never the parent secrets'(t: Test, ops: Ops) {
    const agent = await ops.spawn({ name: 'env', command: '/usr/bin/env', args: [], env: { MY_SETTING: 'on' } });
    const env = joined(await collect(ops, agent.id));
    for (const [name, value] of Object.entries(PARENT_SECRETS)) {
      t.notMatch(env, name, `${name} is not inherited`);
      t.notMatch(env, value, `the value of ${name} is nowhere`);
    }
    t.match(env, /^PATH=/m);
    t.match(env, /^MY_SETTING=on$/m);
    t.match(env, new RegExp(`^AGENTBOX_AGENT_ID=${agent.id}$`, 'm'));
    await t.rejects(ops.spawn({ name: 'env2', command: '/usr/bin/env', args: [], env: { API_TOKEN: 'x' } }), {
      code: 'ABX_ERR_VALIDATION',
      message: /named like a secret/,
    });
    await t.rejects(ops.spawn({ name: 'env3', command: '/usr/bin/env', args: [], env: { SETTING: PARENT_SECRETS['GITHUB_TOKEN']! } }), {
      code: 'ABX_ERR_VALIDATION',
      message: /appears to hold/,
    });
    await t.rejects(ops.spawn({ name: 'env4', command: '/usr/bin/env', args: [], env: { AGENTBOX_ROOT: '/' } }), {
      code: 'ABX_ERR_VALIDATION',
      message: /reserved/,
    });
  },

  async 'working directory: inside the workspace only'(t: Test, ops: Ops, workspace: string) {
    mkdirSync(path.join(workspace, 'sub', 'dir'), { recursive: true });
    const link = `escape-${randomBytes(3).toString('hex')}`;
    symlinkSync('/tmp', path.join(workspace, link));
    const agent = await ops.spawn({ name: 'pwd', command: '/bin/pwd', args: [], cwd: 'sub/dir' });
    t.equal(joined(await collect(ops, agent.id)).trim(), path.join(realpathSync(workspace), 'sub', 'dir'));
    const home = await ops.spawn({ name: 'pwd', command: '/bin/pwd', args: [] });
    t.equal(joined(await collect(ops, home.id)).trim(), path.join(realpathSync(workspace), 'pwd'), 'its own directory <workspace>/<name> by default, created');
    for (const cwd of ['..', 'sub/../..', '/etc', link, 'missing/dir']) {
      await t.rejects(ops.spawn({ name: 'pwd', command: '/bin/pwd', args: [], cwd }), { code: 'ABX_ERR_VALIDATION' }, `cwd ${cwd}`);
    }
  },

  async 'terminate: SIGTERM within the grace period'(t: Test, ops: Ops) {
    const agent = await ops.spawn({ name: 'sleeper', command: 'sleep', args: ['30'] });
    const started = Date.now();
    const final = await ops.terminate(agent.id, 5000);
    t.match(final, { state: 'terminated', signal: 'SIGTERM' });
    t.ok(Date.now() - started < 4000, 'no waiting out the grace period');
    t.equal((await ops.terminate(agent.id, 5000)).state, 'terminated', 'terminating an ended agent returns its record');
  },

  async 'terminate: SIGKILL after the grace period, and grandchildren die too'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('stubborn', 'trap "" TERM; sleep 30 & echo $!; wait'));
    const first = await waitFor('the grandchild pid', async () => {
      for await (const c of await ops.output(agent.id, { follow: false, signal: AbortSignal.timeout(2000) })) return c.text;
      return undefined;
    });
    const grandchild = Number(first.trim());
    t.ok(grandchild > 0 && !processGone(grandchild), 'the grandchild runs');
    const started = Date.now();
    const final = await ops.terminate(agent.id, 300);
    t.ok(Date.now() - started >= 290, 'the grace period was given');
    t.match(final, { state: 'terminated', signal: 'SIGKILL' });
    await waitFor('the grandchild to die', () => processGone(grandchild), 3000);
  },

  async 'what an agent leaves running ends with it'(t: Test, ops: Ops) {
    const agent = await ops.spawn(sh('leaver', 'sleep 30 & echo $!'));
    const out = joined(await collect(ops, agent.id));
    const grandchild = Number(out.trim());
    t.ok(grandchild > 0);
    await waitFor('the leftover to be ended', () => processGone(grandchild), 6000);
    t.equal((await ops.status(agent.id)).state, 'exited');
  },

  async 'killed from outside: failed, with the signal'(t: Test, ops: Ops) {
    const agent = await ops.spawn({ name: 'victim', command: 'sleep', args: ['30'] });
    process.kill(agent.pid!, 'SIGKILL');
    const final = await ended(ops, agent.id);
    t.match(final, { state: 'failed', signal: 'SIGKILL' });
    t.equal(final.exitCode, undefined);
  },

  async 'unknown ids are not found'(t: Test, ops: Ops) {
    await t.rejects(ops.status('agt_unknown'), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.terminate('agt_unknown', 100), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.output('agt_unknown', { follow: false, signal: AbortSignal.timeout(2000) }), { code: 'ABX_ERR_NOT_FOUND' });
  },

  async 'malformed requests and commands that cannot start are input errors'(t: Test, ops: Ops) {
    await t.rejects(ops.spawn({ name: '', command: '/bin/true', args: [] }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.spawn({ name: 'has space', command: '/bin/true', args: [] }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.spawn({ name: 'x', command: '/bin/true', args: 'nope' as unknown as string[] }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.spawn({ name: 'x', command: '/nonexistent/command', args: [] }), { code: 'ABX_ERR_VALIDATION', message: /ENOENT/ });
    const agent = await ops.spawn({ name: 'x', command: '/bin/true', args: [] });
    await t.rejects(ops.terminate(agent.id, -1), { code: 'ABX_ERR_VALIDATION' });
  },

  async 'crash loop: the fifth failure within the window marks it and refuses restarts'(t: Test, ops: Ops) {
    const name = `crashy-${randomBytes(3).toString('hex')}`;
    const states: string[] = [];
    for (let i = 0; i < 5; i++) {
      const agent = await ops.spawn(sh(name, 'exit 1'));
      states.push((await ended(ops, agent.id)).state);
    }
    t.same(states, ['failed', 'failed', 'failed', 'failed', 'crash-loop']);
    await t.rejects(ops.spawn(sh(name, 'exit 0')), { code: 'ABX_ERR_CONFLICT', message: /crash-looping/ });
    const other = await ops.spawn(sh(`${name}-other`, 'exit 0'));
    t.equal((await ended(ops, other.id)).state, 'exited', 'other names are unaffected');
  },
};

/**
 * Run the orchestrator contract against the slot `setup` starts (once, for all cases). `skip`
 * maps a case name to the reason it does not apply; every case not skipped must pass.
 */
export function orchestratorContract(t: Test, setup: () => Promise<SlotHarness<'orchestrator'>>, skip: Partial<Record<OrchestratorCase, string>> = {}): void {
  let harness: SlotHarness<'orchestrator'> | undefined;
  t.before(async () => {
    harness = await setup();
  });
  t.teardown(async () => harness?.close());
  for (const [name, run] of Object.entries(cases) as Array<[OrchestratorCase, (t: Test, ops: Ops, workspace: string) => Promise<void>]>) {
    const reason = skip[name];
    t.test(name, reason ? { skip: reason } : {}, async (t) => {
      t.equal(harness?.state(), 'healthy', 'the slot is healthy');
      await run(t, harness!.ops, harness!.paths.workspaceDir);
    });
  }
}

/**
 * The contract of `orchestrator = "off"`: the slot reports `off` (and the API still starts, though
 * the orchestrator is critical), and every operation — whatever its arguments — returns a promise
 * rejected with ABX_ERR_ADAPTER_OFF (503), never a synchronous throw.
 */
export function orchestratorOffContract(t: Test, setup: () => Promise<SlotHarness<'orchestrator'>>): void {
  t.test('off: every operation is a predictable 503 ABX_ERR_ADAPTER_OFF', async (t) => {
    const h = await setup();
    t.teardown(() => h.close());
    t.equal(h.state(), 'off');
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['spawn', () => h.ops.spawn({ name: 'a', command: '/bin/true', args: [] })],
      ['spawn nonsense', () => h.ops.spawn(undefined as unknown as { name: string; command: string; args: string[] })],
      ['list', () => h.ops.list()],
      ['status', () => h.ops.status('agt_x')],
      ['terminate', () => h.ops.terminate('agt_x', -5)],
      ['output', () => h.ops.output('agt_x', { follow: true, signal: AbortSignal.timeout(100) })],
    ];
    await expectRefusedAsOff(t, calls, { statusCode: 503, message: /"orchestrator" is off/ });
    t.equal(h.state(), 'off');
  });
}

// Agent limits and accounting with real processes: figures from /proc, terminations over memory, CPU and process budgets, attribution across setsid.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import type { AgentProcess, SpawnRequest } from '../../management-api/src/adapters/orchestrator/orchestrator-adapter.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { INOTIFY_INSTANCES, INOTIFY_WATCHES, type LimitSettings } from '../../management-api/src/sandbox/limits/budgets.js';
import { createLimitMetrics } from '../../management-api/src/sandbox/limits/metrics.js';
import { listPids, readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { UsageSampler } from '../../management-api/src/sandbox/limits/usage-sampler.js';
import { waitFor } from '../helpers/wait.js';

const MIB = 1024 ** 2;
const HOUR = 3_600_000;
const logger = createLogger({ level: 'silent' });

/** A started process manager with its own accounting; `intervalMs` HOUR means samples only when the test asks. */
async function managerWith(t: Test, options: { ceiling?: LimitSettings; intervalMs?: number } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-limits-'));
  const registry = new Registry();
  const metrics = createLimitMetrics(registry);
  const accounting = new AgentAccounting({ logger, metrics, ...options });
  const manager = new ProcessManager({ workspaceDir: dir, parentEnv: { PATH: process.env['PATH'] }, logger, accounting });
  await manager.start();
  t.teardown(async () => {
    await manager.closeAll(0);
    rmSync(dir, { recursive: true, force: true });
  });
  return { manager, accounting, registry };
}

/** Read an agent's output until `done` says so, or until it ends (the exit and every pipe holder gone). */
async function readUntil(manager: ProcessManager, id: string, done: (text: string) => boolean = () => false): Promise<string> {
  let text = '';
  // A guard against a hang, not a wait: the output ends when the agent's processes do.
  const signal = AbortSignal.timeout(120_000);
  for await (const chunk of manager.output(id, { follow: true, signal })) {
    text += chunk.text;
    if (done(text)) break;
  }
  if (signal.aborted) throw new Error(`agent ${id}: neither ended nor printed what was awaited within 120 s (output: ${JSON.stringify(text.slice(-200))})`);
  return text;
}

/** Spawn and wait for the agent to end; its final record. */
async function runToEnd(manager: ProcessManager, request: Omit<SpawnRequest, 'name'>): Promise<AgentProcess> {
  const agent = await manager.spawn({ name: 'limited', ...request });
  await readUntil(manager, agent.id);
  return manager.status(agent.id);
}

const ceiling: LimitSettings = { memory: '2g', cpu_seconds: 3600, processes: 64 };

t.test('figures: the RSS and PSS of a process that touched 64 MiB, kept after the exit', async (t) => {
  const { manager, accounting } = await managerWith(t, { ceiling, intervalMs: HOUR });
  const agent = await manager.spawn({
    name: 'toucher',
    command: process.execPath,
    args: ['-e', "globalThis.b = Buffer.alloc(64 * 2 ** 20, 1); console.log('ready'); setInterval(() => {}, 1e6)"],
  });
  t.same(agent.usage, { rss_bytes: 0, pss_bytes: 0, cpu_seconds: 0, processes: 0 }, 'no figures before the first sample');
  t.same(agent.limits, { memory_bytes: 2 * 1024 * MIB, cpu_seconds: 3600, processes: 64 }, "the manifest's budgets");
  await readUntil(manager, agent.id, (text) => text.includes('ready'));
  await accounting.sample();
  const usage = manager.status(agent.id).usage!;
  t.ok(usage.rss_bytes >= 64 * MIB, `RSS ${usage.rss_bytes} ≥ 64 MiB`);
  t.ok(usage.pss_bytes >= 64 * MIB, `PSS ${usage.pss_bytes} ≥ 64 MiB (private pages count whole)`);
  t.ok(usage.rss_bytes < 1024 * MIB, 'RSS is plausible, not a sum gone wrong');
  t.equal(usage.processes, 1);
  t.ok(usage.cpu_seconds > 0 && usage.cpu_seconds < 60, `CPU seconds ${usage.cpu_seconds} plausible`);
  const ended = await manager.terminate(agent.id, 5_000);
  t.equal(ended.state, 'terminated');
  t.same(ended.usage, usage, 'the last figures stay with the ended agent');
  t.notOk(ended.reason, 'a terminate asked for has no limit reason');
});

t.test('limit:memory — an agent that allocates past its memory budget', async (t) => {
  const { manager, registry } = await managerWith(t, { ceiling });
  const agent = await runToEnd(manager, {
    command: process.execPath,
    args: ['-e', 'globalThis.b = Buffer.alloc(160 * 2 ** 20, 1); setInterval(() => {}, 1e6)'],
    limits: { memory: '96m' },
  });
  t.match(agent, { state: 'terminated', reason: 'limit:memory', limits: { memory_bytes: 96 * MIB } });
  t.ok(agent.usage!.pss_bytes > 96 * MIB, `the figures that ended it stay (PSS ${agent.usage!.pss_bytes})`);
  const text = await registry.metrics();
  t.match(text, /agentbox_agent_limit_terminations_total\{reason="limit:memory"\} 1/);
  t.match(text, /agentbox_agent_limit_terminations_total\{reason="limit:cpu"\} 0/);
  t.notMatch(text, new RegExp(agent.id), 'no agent id in any label');
  t.match(text, /agentbox_agent_peak_memory_bytes_count 1/);
});

// Written a MiB at a time: no resident set shows a memfd's pages until they are mapped, and this one never is.
const MEMFD_HOG = `import os, sys, time
fd = os.memfd_create('hoard')
block = b'\\x01' * (1 << 20)
for _ in range(int(sys.argv[1])):
    os.write(fd, block)
os.dup(fd)
print('held', flush=True)
time.sleep(600)`;

t.test('limit:memory — memory held in a memfd, which no resident set shows, counts (once, however many descriptors)', async (t) => {
  const { manager } = await managerWith(t, { ceiling });
  const agent = await runToEnd(manager, { command: '/usr/bin/python3', args: ['-c', MEMFD_HOG, '256'], limits: { memory: '96m' } });
  t.match(agent, { state: 'terminated', reason: 'limit:memory' });
  const usage = agent.usage!;
  t.ok(usage.pss_bytes < 64 * MIB, `its PSS stays small (${usage.pss_bytes})`);
  t.ok(
    usage.memfd_bytes! > 96 * MIB && usage.memfd_bytes! <= 256 * MIB,
    `the memfd's bytes, counted once though two descriptors hold it (${usage.memfd_bytes})`,
  );
});

// A file it deleted while holding it open keeps its blocks: no walk of its directories finds it.
const DELETED_HOG = `import os, sys, time
f = open('hoard.bin', 'wb')
block = b'\\x01' * (1 << 20)
for _ in range(int(sys.argv[1])):
    f.write(block)
f.flush()
os.fsync(f.fileno())
os.unlink('hoard.bin')
print('held', flush=True)
time.sleep(600)`;

t.test('limit:disk — a file deleted while held open still counts against the disk budget', async (t) => {
  const { manager } = await managerWith(t, { ceiling: { ...ceiling, disk: '10g' } });
  const agent = await runToEnd(manager, { command: '/usr/bin/python3', args: ['-c', DELETED_HOG, '96'], limits: { disk: '64m' } });
  t.match(agent, { state: 'terminated', reason: 'limit:disk' });
  t.ok(agent.usage!.disk_bytes! >= 96 * MIB, `its disk figure holds the deleted file (${agent.usage!.disk_bytes})`);
});

// inotify instances are a count of the uid's, shared with the box and every other agent of that uid.
const INOTIFY_HOG = `import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
fds = [libc.inotify_init1(0) for _ in range(int(sys.argv[1]))]
print('held', sum(1 for fd in fds if fd >= 0), flush=True)
time.sleep(600)`;

t.test('limit:inotify — an agent holding more inotify instances than its share is ended; a few are fine', async (t) => {
  const { manager, accounting } = await managerWith(t, { ceiling });
  const few = await manager.spawn({ name: 'watcher', command: '/usr/bin/python3', args: ['-c', INOTIFY_HOG, String(INOTIFY_INSTANCES)] });
  await readUntil(manager, few.id, (text) => text.includes('held'));
  const greedy = await runToEnd(manager, { command: '/usr/bin/python3', args: ['-c', INOTIFY_HOG, String(INOTIFY_INSTANCES + 4)] });
  t.match(greedy, { state: 'terminated', reason: 'limit:inotify' });
  t.equal(greedy.usage!.inotify_instances, INOTIFY_INSTANCES + 4, 'its instances, one per descriptor');
  await accounting.nextSample();
  const kept = manager.status(few.id);
  t.match(kept, { state: 'running', usage: { inotify_instances: INOTIFY_INSTANCES } }, `at the limit (${INOTIFY_INSTANCES}) it runs on`);
});

// Watches are a count of the uid's too: each a directory or file followed. Made in a directory of the agent's own (one watch per inode).
const WATCH_HOG = `import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
n, instances = int(sys.argv[1]), int(sys.argv[2])
fds = [libc.inotify_init1(0) for _ in range(instances)]
os.makedirs('w', exist_ok=True)
added = 0
for i in range(n):
    d = f'w/{i}'
    os.makedirs(d, exist_ok=True)
    if libc.inotify_add_watch(fds[i % instances], d.encode(), 0x100) >= 0:
        added += 1
print('held', added, flush=True)
time.sleep(600)`;

t.test('limit:inotify — an agent holding more watches than its share is ended, across its instances; its share is fine', async (t) => {
  const { manager, accounting } = await managerWith(t, { ceiling });
  const few = await manager.spawn({ name: 'watch-few', command: '/usr/bin/python3', args: ['-c', WATCH_HOG, String(INOTIFY_WATCHES), '2'] });
  await readUntil(manager, few.id, (text) => text.includes(`held ${INOTIFY_WATCHES}`));
  const greedy = await runToEnd(manager, { command: '/usr/bin/python3', args: ['-c', WATCH_HOG, String(INOTIFY_WATCHES + 50), '3'] });
  t.match(greedy, { state: 'terminated', reason: 'limit:inotify' });
  t.ok(greedy.usage!.inotify_watches! > INOTIFY_WATCHES, `its watches over ${INOTIFY_WATCHES}: ${greedy.usage!.inotify_watches}`);
  t.equal(greedy.usage!.inotify_instances, 3, 'in three instances, none over the instance cap');
  await accounting.nextSample();
  t.match(
    manager.status(few.id),
    { state: 'running', usage: { inotify_watches: INOTIFY_WATCHES } },
    `at the limit (${INOTIFY_WATCHES}) it runs on, every watch counted`,
  );
});

t.test('limit:cpu — a busy loop past cpu_seconds', async (t) => {
  const { manager } = await managerWith(t, { ceiling });
  const agent = await runToEnd(manager, { command: '/bin/sh', args: ['-c', 'while :; do :; done'], limits: { cpu_seconds: 1 } });
  t.match(agent, { state: 'terminated', reason: 'limit:cpu', limits: { cpu_seconds: 1 } });
  t.ok(agent.usage!.cpu_seconds > 1, `CPU seconds ${agent.usage!.cpu_seconds} > 1`);
});

t.test('limit:processes — a forking agent, including a child that left the group with setsid', async (t) => {
  const { manager } = await managerWith(t, { ceiling: { ...ceiling, processes: 4 } });
  // The setsid child keeps the output pipe open: the output ends only once it is gone too.
  const agent = await runToEnd(manager, { command: '/bin/sh', args: ['-c', 'setsid sleep 300 & for i in 1 2 3 4 5 6; do sleep 300 & done; wait'] });
  t.match(agent, { state: 'terminated', reason: 'limit:processes', limits: { processes: 4 } });
  t.ok(agent.usage!.processes > 4, `processes ${agent.usage!.processes} > 4`);
});

t.test('a daemon that calls setsid and is reparented stays the agent’s', async (t) => {
  const { manager, accounting } = await managerWith(t, { ceiling, intervalMs: HOUR });
  const middle = 'echo middle $$; setsid sleep 300 > /dev/null 2>&1 & echo daemon $!; exec sleep 300';
  // The leader waits for the middle, then runs a sleep of its own: it outlives the middle.
  const agent = await manager.spawn({ name: 'daemoniser', command: '/bin/sh', args: ['-c', `sh -c '${middle}'; exec sleep 300`] });
  const text = await readUntil(manager, agent.id, (s) => /daemon \d+/.test(s));
  const middlePid = Number(/middle (\d+)/.exec(text)![1]);
  const daemonPid = Number(/daemon (\d+)/.exec(text)![1]);
  t.teardown(() => quietKill(daemonPid));
  await waitFor('the daemon to run in its own session', () => readStat(daemonPid)?.session === daemonPid);
  await accounting.sample();
  t.equal(manager.status(agent.id).usage!.processes, 3, 'leader, middle and daemon (the daemon found by descent)');
  process.kill(middlePid, 'SIGKILL');
  await waitFor('the daemon to be reparented', () => readStat(daemonPid) && readStat(daemonPid)!.ppid !== middlePid && !readStat(middlePid));
  await accounting.sample();
  t.equal(manager.status(agent.id).state, 'running');
  t.equal(
    manager.status(agent.id).usage!.processes,
    2,
    'the leader (now sleeping) and the daemon: neither group, session nor descent finds the daemon, having belonged does',
  );
});

t.test('sampling survives processes that vanish mid-read', async (t) => {
  const { manager, accounting } = await managerWith(t, { ceiling, intervalMs: HOUR });
  // A zombie in the tree: a child that exits once its parent has exec'd sleep 300, which never waits for it. (A child that
  // exited sooner could be reaped by the shell before its exec, and no zombie would be left: this raced on a loaded machine.)
  const agent = await manager.spawn({
    name: 'zombie',
    command: '/bin/sh',
    args: ['-c', `sh -c 'while read -r c < /proc/$PPID/comm && [ "$c" != sleep ]; do :; done' & echo started; exec sleep 300`],
  });
  await readUntil(manager, agent.id, (s) => s.includes('started'));
  const agentPid = agent.pid;
  if (agentPid === undefined) throw new Error(`the running agent has no pid: ${JSON.stringify(agent)}`);
  await waitFor('the zombie', () => stateOfChildren(agentPid).includes('Z'));
  await accounting.sample();
  t.equal(manager.status(agent.id).usage!.processes, 2, 'a zombie is counted (it holds a pid), with no memory read');

  // A process listed, then reaped before its files are read: the stale list is sampled as is.
  const gone = spawn('/bin/true');
  const pid = gone.pid!;
  await new Promise((resolve) => gone.once('exit', resolve));
  t.notOk(readStat(pid), 'the process is gone');
  const direct = new UsageSampler();
  direct.follow('x', agentPid);
  await t.resolves(direct.sample([...listPids(), pid]), 'a listed pid that has gone is skipped');
  t.equal(direct.unfollow('x')?.usage.processes, 2, 'and the agent is still measured');

  // Churn: processes start and end throughout the samples.
  const churn = await manager.spawn({ name: 'churn', command: '/bin/sh', args: ['-c', 'echo go; while :; do /bin/true; done'] });
  await readUntil(manager, churn.id, (s) => s.includes('go'));
  for (let i = 0; i < 30; i++) await accounting.sample();
  t.ok(manager.status(churn.id).usage!.processes >= 1, 'the churning agent is still accounted');
});

t.test('a request may lower the budgets, never raise them', async (t) => {
  const { manager } = await managerWith(t, { ceiling, intervalMs: HOUR });
  await t.rejects(manager.spawn({ name: 'greedy', command: '/bin/true', args: [], limits: { memory: '4g' } }), {
    name: 'AdapterInputError',
    message: /limits\.memory may only lower the manifest's sandbox\.limits\.memory \("2g"\)/,
  });
  await t.rejects(manager.spawn({ name: 'greedy', command: '/bin/true', args: [], limits: { processes: 65 } }), {
    message: /limits\.processes may only lower/,
  });
  t.same(manager.list(), [], 'nothing was started');
});

/** The state letters of `pid`'s children. */
function stateOfChildren(pid: number): string {
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean);
    return children.map((c: string) => readStat(Number(c))?.state ?? '').join('');
  } catch {
    return '';
  }
}

function quietKill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone (the test passed through its kill).
  }
}

// The disk budget: requests lower it, a walk of the agent's directories ends it with limit:disk (over the budget, or unmeasurable) or limit:entries (over its entry budget), one walk at a time, paced.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { agentDirectories } from '../../management-api/src/sandbox/agent-directories.js';
import { createLimitMetrics } from '../../management-api/src/sandbox/limits/metrics.js';
import { resolveLimits } from '../../management-api/src/sandbox/limits/request.js';
import { DiskSampler, WALK_PACE } from '../../management-api/src/sandbox/limits/disk-sampler.js';
import { captureLogs } from '../api/support/harness.js';

const MIB = 1024 ** 2;
const HOUR = 3_600_000;
const ceiling = { memory: '1g', cpu_seconds: 600, processes: 32, disk: '64m' };

/** A process standing in for the agent (its pid is followed), ended with the test. */
function sleeper(t: Test): number {
  const child = spawn('sleep', ['300'], { stdio: 'ignore' });
  t.teardown(() => child.kill('SIGKILL'));
  return child.pid!;
}

function scratch(t: Test): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-disk-'));
  // rm -rf copes with any depth; a removal by absolute paths does not.
  t.teardown(() => void spawnSync('rm', ['-rf', dir]));
  return dir;
}

t.test('the manifest gives the disk budget; a request lowers it, never raises it', async (t) => {
  t.same(resolveLimits(ceiling, undefined), { memory_bytes: 1024 * MIB, cpu_seconds: 600, processes: 32, disk_bytes: 64 * MIB });
  t.same(resolveLimits(ceiling, { disk: '8m' }).disk_bytes, 8 * MIB);
  t.same(resolveLimits(undefined, { disk: '1g' }), { disk_bytes: 1024 * MIB }, 'without a manifest ceiling, what was asked');
  t.throws(() => resolveLimits(ceiling, { disk: '65m' }), {
    code: 'ABX_ERR_VALIDATION',
    message: /^limits\.disk may only lower the manifest's sandbox\.limits\.disk \("64m"\)/,
  });
  t.throws(() => resolveLimits(ceiling, { disk: 'all' }), { message: /limits\.disk "all" must be a number with an optional unit k, m or g/ });
  t.throws(() => resolveLimits(ceiling, { disk: '0' }), { message: /limits\.disk must be more than 0/ });
});

t.test('the manifest gives the entry budget; a request lowers it, never raises it', async (t) => {
  const withEntries = { ...ceiling, entries: 5_000 };
  t.equal(resolveLimits(withEntries, undefined).entries, 5_000);
  t.equal(resolveLimits(withEntries, { entries: 100 }).entries, 100);
  t.throws(() => resolveLimits(withEntries, { entries: 5_001 }), {
    code: 'ABX_ERR_VALIDATION',
    message: /^limits\.entries may only lower the manifest's sandbox\.limits\.entries \(5000\)/,
  });
  t.throws(() => resolveLimits(withEntries, { entries: 0 }), { message: /limits\.entries must be a whole number of at least 1/ });
  t.throws(() => resolveLimits(withEntries, { entries: 1.5 }), { message: /limits\.entries must be a whole number/ });
  t.notOk('entries' in resolveLimits(ceiling, undefined), 'a ceiling without it: the walk keeps its own cap');
});

t.test("an agent's directories: its working directory unless it is the shared workspace, and its TMPDIR", async (t) => {
  t.same(agentDirectories({ cwd: '/w/a', workspace: '/w' }, { env: { TMPDIR: '/tmp/agent-x' } }), ['/w/a', '/tmp/agent-x']);
  t.same(agentDirectories({ cwd: '/w', workspace: '/w' }, { env: {} }), [], 'unconfined in the workspace itself: nothing of its own to count');
});

t.test('limit:disk — over the budget, the agent is terminated and its figure kept', async (t) => {
  const dir = scratch(t);
  const [work, tmp] = [path.join(dir, 'work'), path.join(dir, 'tmp')];
  mkdirSync(work);
  mkdirSync(tmp);
  const logs = captureLogs();
  const registry = new Registry();
  const accounting = new AgentAccounting({
    logger: createLogger({ level: 'info', destination: logs.destination }),
    ceiling,
    metrics: createLimitMetrics(registry),
    intervalMs: HOUR,
    diskIntervalMs: HOUR,
  });
  t.teardown(() => accounting.close());
  let terminated = 0;
  accounting.follow('agt_disk', sleeper(t), resolveLimits(ceiling, { disk: '4m' }), async () => terminated++, { directories: [work, tmp] });
  writeFileSync(path.join(work, 'a'), Buffer.alloc(2 * MIB, 1));
  await accounting.sampleDisk();
  t.equal(terminated, 0, '2 MiB under a 4 MiB budget');
  t.ok(accounting.account('agt_disk')!.usage.disk_bytes! >= 2 * MIB, 'the figure is on the record');
  writeFileSync(path.join(tmp, 'b'), Buffer.alloc(3 * MIB, 1));
  await accounting.sampleDisk();
  t.equal(terminated, 1, 'the temporary directory counts too: 5 MiB over 4 MiB');
  t.match(accounting.account('agt_disk'), { reason: 'limit:disk', limits: { disk_bytes: 4 * MIB } });
  t.match(logs.events('AgentLimitExceeded')[0], { agent: 'agt_disk', reason: 'limit:disk', disk: { bytes: Number } });
  t.match(await registry.metrics(), /agentbox_agent_limit_terminations_total\{reason="limit:disk"\} 1/);
  await accounting.sampleDisk();
  t.equal(terminated, 1, 'ended once, not at every walk');
});

t.test('limit:disk — bytes below a name that is not UTF-8 count as any others', async (t) => {
  const dir = scratch(t);
  const accounting = new AgentAccounting({
    logger: createLogger({ level: 'silent' }),
    ceiling,
    metrics: createLimitMetrics(new Registry()),
    intervalMs: HOUR,
    diskIntervalMs: HOUR,
  });
  t.teardown(() => accounting.close());
  let terminated = 0;
  accounting.follow('agt_odd', sleeper(t), resolveLimits(ceiling, { disk: '4m' }), async () => terminated++, { directories: [dir] });
  // What a hostile agent would try: its bytes under \xff/, a name Node decodes to one that looks up nothing.
  const hidden = Buffer.concat([Buffer.from(`${dir}/`), Buffer.of(0xff)]);
  mkdirSync(hidden);
  writeFileSync(Buffer.concat([hidden, Buffer.from('/fill')]), Buffer.alloc(6 * MIB, 1));
  await accounting.sampleDisk();
  t.equal(terminated, 1, '6 MiB under \\xff/ is over a 4 MiB budget');
  t.match(accounting.account('agt_odd'), { reason: 'limit:disk' });
});

t.test('limit:disk — a tree the walk cannot measure counts as over the budget, with the reason logged', async (t) => {
  const dir = scratch(t);
  const logs = captureLogs();
  const accounting = new AgentAccounting({
    logger: createLogger({ level: 'info', destination: logs.destination }),
    ceiling,
    intervalMs: HOUR,
    diskIntervalMs: HOUR,
  });
  t.teardown(() => accounting.close());
  let terminated = 0;
  const deep = path.join(dir, 'x'.repeat(250), 'y'.repeat(250));
  mkdirSync(deep, { recursive: true });
  // A path the box cannot walk: beyond PATH_MAX once joined (built by relative steps, as an agent would).
  let at = deep;
  const home = process.cwd();
  process.chdir(deep);
  for (let i = 0; i < 17; i++) {
    mkdirSync('z'.repeat(250));
    process.chdir('z'.repeat(250));
    at += `/${'z'.repeat(250)}`;
  }
  process.chdir(home);
  accounting.follow('agt_deep', sleeper(t), resolveLimits(ceiling, undefined), async () => terminated++, { directories: [dir] });
  await accounting.sampleDisk();
  t.equal(terminated, 1);
  t.equal(accounting.account('agt_deep')!.reason, 'limit:disk');
  const line = logs.events('AgentLimitExceeded')[0]!;
  t.match(String(line['msg']), /its directories cannot be measured: .*ENAMETOOLONG/);
  t.ok(at.length > 4096);
});

t.test("limit:entries — more entries than the agent's entry budget, however few bytes, with the budget named", async (t) => {
  const dir = scratch(t);
  const logs = captureLogs();
  const registry = new Registry();
  const accounting = new AgentAccounting({
    logger: createLogger({ level: 'info', destination: logs.destination }),
    metrics: createLimitMetrics(registry),
    ceiling: { ...ceiling, entries: 1_000 },
    intervalMs: HOUR,
    diskIntervalMs: HOUR,
  });
  t.teardown(() => accounting.close());
  let ended = 0;
  let spared = 0;
  const [many, few] = [path.join(dir, 'many'), path.join(dir, 'few')];
  mkdirSync(many);
  mkdirSync(few);
  // Empty files: far under the disk budget in bytes, so only the count can end it.
  for (let i = 0; i < 60; i++) writeFileSync(path.join(many, `f${i}`), '');
  for (let i = 0; i < 40; i++) writeFileSync(path.join(few, `f${i}`), '');
  accounting.follow('agt_many', sleeper(t), resolveLimits({ ...ceiling, entries: 1_000 }, { entries: 50 }), async () => ended++, { directories: [many] });
  // 40 files below its directory (the directory itself is not counted), within 50.
  accounting.follow('agt_few', sleeper(t), resolveLimits({ ...ceiling, entries: 1_000 }, { entries: 50 }), async () => spared++, { directories: [few] });
  await accounting.sampleDisk();
  t.equal(ended, 1, '60 entries over a budget of 50');
  t.equal(spared, 0, '40 entries within it');
  t.match(accounting.account('agt_many'), { reason: 'limit:entries', limits: { entries: 50 } });
  t.match(await registry.metrics(), /agentbox_agent_limit_terminations_total\{reason="limit:entries"\} 1/, 'counted under its own reason');
  t.match(await registry.metrics(), /agentbox_agent_limit_terminations_total\{reason="limit:disk"\} 0/, 'not as a disk budget');
  t.notOk(accounting.account('agt_few')!.reason);
  t.equal(accounting.account('agt_few')!.usage.disk_entries, 40, 'the count is on the record: what is below its directory');
  t.ok(accounting.account('agt_many')!.usage.disk_entries! > 50, 'and, for the agent ended, at least one past its budget');
  const line = logs.events('AgentLimitExceeded')[0]!;
  t.equal(line['agent'], 'agt_many');
  t.equal(line['reason'], 'limit:entries');
  t.match(String(line['msg']), /\(limit:entries: its directories hold more than 50 entries \(limits\.entries\)\)/);
});

t.test("walks are paced: the next pass waits WALK_PACE times the last one's length", async (t) => {
  const dir = scratch(t);
  for (let i = 0; i < 3000; i++) writeFileSync(path.join(dir, `f${i}`), '');
  const sampler = new DiskSampler();
  t.ok(sampler.due(), 'due before any pass');
  let took = 0;
  const pass = sampler.run([{ id: 'a', directories: [dir] }], (_id, figure) => (took = figure.seconds * 1000));
  t.notOk(sampler.due(), 'not due while a pass is under way');
  await pass;
  const ended = Date.now();
  t.ok(took > 0);
  // Judged at chosen instants, not by waiting: the pass's length is what it is on this machine.
  const length = Math.max(1, took);
  t.notOk(sampler.due(ended + Math.floor(length)), 'one length after: not yet');
  t.ok(sampler.due(ended + Math.ceil((WALK_PACE + 1) * length) + 50), 'past the pace: due');
});

t.test('no directories, no walk: the disk figure stays absent', async (t) => {
  const accounting = new AgentAccounting({ logger: createLogger({ level: 'silent' }), ceiling, intervalMs: HOUR, diskIntervalMs: HOUR });
  t.teardown(() => accounting.close());
  accounting.follow('agt_none', sleeper(t), resolveLimits(ceiling, undefined), async () => undefined);
  await accounting.sampleDisk();
  t.notOk('disk_bytes' in accounting.account('agt_none')!.usage);
});

t.test('one walk at a time: a second call joins the walk under way', async (t) => {
  const dir = scratch(t);
  for (let i = 0; i < 2000; i++) writeFileSync(path.join(dir, `f${i}`), '');
  const accounting = new AgentAccounting({ logger: createLogger({ level: 'silent' }), ceiling, intervalMs: HOUR, diskIntervalMs: HOUR });
  t.teardown(() => accounting.close());
  accounting.follow('agt_w', sleeper(t), resolveLimits(ceiling, undefined), async () => undefined, { directories: [dir] });
  const first = accounting.sampleDisk();
  t.equal(accounting.sampleDisk(), first, 'the same promise');
  await first;
  t.not(accounting.sampleDisk(), first, 'a new walk once the first ended');
});

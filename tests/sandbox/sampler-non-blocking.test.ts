// Sampling never waits on the event loop nor on a stuck read: a memory read that does not answer (a FIFO standing in for a stuck smaps_rollup) is estimated from the stat line and the budget enforced, the process not read again until it answers; a failed sample keeps its waiters.
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { constants, mkdirSync, mkdtempSync, openSync, closeSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { MemoryReader } from '../../management-api/src/sandbox/limits/memory-reads.js';
import { pageSize, type ProcStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { createLimitMetrics } from '../../management-api/src/sandbox/limits/metrics.js';
import { waitFor } from '../helpers/wait.js';

const PID = 4242;
// Fields after the name: state S, ppid 1, group and session 4242, utime 250 + stime 50 ticks (3 s), start time 777, 25 resident pages.
const STAT = `${PID} (agent) S 1 ${PID} ${PID} 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0 777 1000 25\n`;
const ROLLUP = '00400000-7ffc0000 ---p 00000000 00:00 0  [rollup]\nRss:                 100 kB\nPss:                  50 kB\n';

/**
 * A process table of one agent process in a directory laid out as /proc is, whose smaps_rollup
 * is a FIFO: opening it for reading waits until the test writes to it, as a read of a process
 * holding its memory lock does. `release` answers the read waiting now (once its open has reached
 * the FIFO: the thread pool may not have run it yet); the next read waits again.
 */
function stuckProc(t: Test): { root: string; release: () => Promise<void> } {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-fake-proc-'));
  mkdirSync(path.join(root, String(PID)));
  writeFileSync(path.join(root, String(PID), 'stat'), STAT);
  const fifo = path.join(root, String(PID), 'smaps_rollup');
  execFileSync('mkfifo', [fifo]);
  const release = async (): Promise<void> => {
    // A non-blocking open for writing succeeds only once a reader waits (ENXIO before): never hangs the test.
    const fd = await waitFor('the read to reach the FIFO', () => {
      try {
        return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK) + 1;
      } catch {
        return undefined;
      }
    });
    writeSync(fd - 1, ROLLUP);
    closeSync(fd - 1);
  };
  t.teardown(() => {
    // Reads still waiting are woken by a writer (O_RDWR opens at once) and get an end of file once
    // it closes; a read not yet begun opens the regular file put in the FIFO's place.
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const plain = path.join(root, String(PID), 'rollup');
    writeFileSync(plain, ROLLUP);
    renameSync(plain, fifo);
    closeSync(fd);
    rmSync(root, { recursive: true, force: true });
  });
  return { root, release };
}

const statOf = (rssPages: number): ProcStat => ({
  pid: PID,
  state: 'S',
  ppid: 1,
  pgrp: PID,
  session: PID,
  ownTicks: 300,
  reapedTicks: 0,
  startTime: 777,
  rssPages,
  threads: 1,
});

const count = async (metric: { get(): Promise<{ values: Array<{ value: number; metricName?: string }> }> }, suffix = ''): Promise<number> =>
  (await metric.get()).values.find((v) => !suffix || v.metricName?.endsWith(suffix))?.value ?? 0;

t.test('a memory read that does not answer holds no budget: the sample estimates it and enforces, the event loop turning', async (t) => {
  const { root } = stuckProc(t);
  const registry = new Registry();
  const metrics = createLimitMetrics(registry);
  let terminated = 0;
  const accounting = new AgentAccounting({ logger: createLogger({ level: 'silent' }), metrics, procRoot: root, intervalMs: 5, memoryWaitMs: 40 });
  t.teardown(() => accounting.close());
  accounting.follow('agt_stuck', PID, { memory_bytes: 40 * 1024 }, async () => void terminated++);

  // The read waits on the FIFO; ticks due during the wait are dropped, the sample ends at the wait.
  await waitFor('the agent to be ended over its budget', () => accounting.account('agt_stuck')?.reason);
  t.equal(accounting.account('agt_stuck')!.reason, 'limit:memory', 'the resident set (100 KiB) stood in for the PSS: over a 40 KiB budget');
  t.same(
    accounting.account('agt_stuck')!.usage,
    { rss_bytes: 100 * 1024, pss_bytes: 100 * 1024, memfd_bytes: 0, inotify_instances: 0, inotify_watches: 0, cpu_seconds: 3, processes: 1 },
    'the figures of the estimate',
  );
  t.equal(terminated, 1, 'terminated once');
  t.ok((await count(metrics.sampleDuration, '_count')) >= 1, 'a sample completed while the read still waits');
  t.ok((await count(metrics.memoryEstimates)) >= 1, 'the estimate is counted');
  t.ok((await count(metrics.samplesDropped)) >= 1, 'ticks due during the wait were dropped, not queued');
  // A loop held by the read would not run this timer.
  const turned = await new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 1));
  t.ok(turned, 'the event loop turns');
});

t.test('a process whose read waits is not read again until it answers; its estimate is its last PSS plus its resident growth', async (t) => {
  const { root, release } = stuckProc(t);
  const reader = new MemoryReader(root, 30);
  const page = pageSize();

  const first = await reader.read([statOf(25)]);
  t.same(first, { memories: [{ rss: 25 * page, pss: 25 * page }], estimated: 1 }, 'never read: its resident set as both figures');
  t.equal(reader.pending, 1, 'one read waits');
  const second = await reader.read([statOf(25)]);
  t.equal(second.estimated, 1, 'estimated again');
  t.equal(reader.pending, 1, 'and no second read was started: a stuck process holds one thread of the pool, never more');

  // The read answers late: its figures are kept for the estimates to come.
  await release();
  await waitFor('the late read to answer', () => (reader.pending === 0 ? true : undefined));
  // The next read waits again (the FIFO has no writer); the process has grown 100 KiB meanwhile.
  const grown = await reader.read([statOf(25 + (100 * 1024) / page)]);
  t.same(
    grown,
    { memories: [{ rss: 100 * 1024 + 25 * page, pss: 50 * 1024 + 100 * 1024 }], estimated: 1 },
    'the PSS of the late read (50 KiB) plus all the resident growth since (100 KiB)',
  );
  const shrunk = await reader.read([statOf(1)]);
  t.same(shrunk.memories, [{ rss: page, pss: 50 * 1024 }], 'a resident set that shrank takes nothing off the last PSS');
  await release();
  await waitFor('the last read to answer', () => (reader.pending === 0 ? true : undefined));

  // A zombie has nothing to read; a process of another start time (a reused pid) starts afresh.
  t.same((await reader.read([{ ...statOf(25), state: 'Z' }])).memories, [{ rss: 0, pss: 0 }], 'a zombie: nothing');
  const reused = await reader.read([{ ...statOf(25), startTime: 778 }]);
  t.same(reused.memories, [{ rss: 25 * page, pss: 25 * page }], 'a reused pid is not estimated from the process it replaced');
});

t.test('reads that answer in time are exact, and a sample waits for them', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-fake-proc-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, String(PID)));
  writeFileSync(path.join(root, String(PID), 'smaps_rollup'), ROLLUP);
  const reader = new MemoryReader(root, 60_000);
  t.same(await reader.read([statOf(25)]), { memories: [{ rss: 100 * 1024, pss: 50 * 1024 }], estimated: 0 });
  t.same(await reader.read([]), { memories: [], estimated: 0 }, 'no process: nothing read');
});

t.test('a sample that fails leaves its waiters for the next one', async (t) => {
  const parent = mkdtempSync(path.join(tmpdir(), 'agentbox-late-proc-'));
  t.teardown(() => rmSync(parent, { recursive: true, force: true }));
  // A process table that is not there yet: the first sample fails, the next finds it (empty).
  const root = path.join(parent, 'proc');
  const accounting = new AgentAccounting({ logger: createLogger({ level: 'silent' }), procRoot: root, intervalMs: 3_600_000 });
  t.teardown(() => accounting.close());
  accounting.follow('agt_late', PID, {}, async () => undefined);
  let resolved = false;
  const waiting = accounting.nextSample().then(() => (resolved = true));
  await t.rejects(accounting.sample(), { code: 'ENOENT' });
  t.notOk(resolved, 'not resolved by the failed sample');
  mkdirSync(root);
  await accounting.sample();
  await waiting;
  t.ok(resolved, 'resolved by the next sample that completed');
});

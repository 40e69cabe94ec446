// Sampling never waits on the event loop: a memory read that cannot finish (a FIFO standing in for a stuck smaps_rollup) leaves the API turning, ticks are dropped, not queued; a failed sample keeps its waiters.
import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import { constants, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { createLimitMetrics } from '../../management-api/src/sandbox/limits/metrics.js';
import { waitFor } from '../helpers/wait.js';

const PID = 4242;
// Fields after the name: state S, ppid 1, group and session 4242, utime 250 + stime 50 ticks (3 s), start time 777, 25 resident pages.
const STAT = `${PID} (agent) S 1 ${PID} ${PID} 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0 777 1000 25\n`;
const ROLLUP = '00400000-7ffc0000 ---p 00000000 00:00 0  [rollup]\nRss:                 100 kB\nPss:                  50 kB\n';

/**
 * A process table of one agent process in a directory laid out as /proc is, whose smaps_rollup
 * is a FIFO: opening it for reading waits until the test writes to it, as a read of a process
 * holding its memory lock does. `release` writes the rollup (and unblocks the reader).
 */
function stuckProc(t: Test): { root: string; release: () => void } {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-fake-proc-'));
  mkdirSync(path.join(root, String(PID)));
  writeFileSync(path.join(root, String(PID), 'stat'), STAT);
  const fifo = path.join(root, String(PID), 'smaps_rollup');
  execFileSync('mkfifo', [fifo]);
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    // Non-blocking open for writing succeeds only while a reader waits: never hangs the test.
    const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    writeSync(fd, ROLLUP);
    closeSync(fd);
  };
  t.teardown(() => {
    try {
      release();
    } catch {
      // No reader waited (the sample never got that far): nothing to unblock.
    }
    rmSync(root, { recursive: true, force: true });
  });
  return { root, release };
}

t.test('a sample waiting on a memory read leaves the event loop free, and late ticks are dropped', async (t) => {
  const { root, release } = stuckProc(t);
  const registry = new Registry();
  const metrics = createLimitMetrics(registry);
  let terminated = 0;
  const accounting = new AgentAccounting({ logger: createLogger({ level: 'silent' }), metrics, procRoot: root, intervalMs: 5 });
  t.teardown(() => accounting.close());
  accounting.follow('agt_stuck', PID, { memory_bytes: 40 * 1024 }, async () => void terminated++);

  // The timer's first sample gets as far as the memory read and waits there; the loop turns on.
  const dropped = async (): Promise<number> => (await metrics.samplesDropped.get()).values[0]?.value ?? 0;
  await waitFor('ticks to be dropped while the sample waits', async () => ((await dropped()) >= 3 ? true : undefined));
  t.equal((await metrics.sampleDuration.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value ?? 0, 0, 'no sample has completed');
  t.same(accounting.account('agt_stuck')?.usage.processes, 0, 'no figures yet');
  const joined = accounting.sample();
  const next = accounting.nextSample();

  release();
  await joined;
  const usage = accounting.account('agt_stuck')!.usage;
  t.same(
    usage,
    { rss_bytes: 100 * 1024, pss_bytes: 50 * 1024, cpu_seconds: 3, processes: 1 },
    'figures from the stat line and the rollup, as a synchronous read gave',
  );
  t.equal(
    (await metrics.sampleDuration.get()).values.find((v) => v.metricName?.endsWith('_count'))?.value,
    1,
    'one sample ran: the dropped ticks were not queued, a call during it joined it',
  );
  t.equal(accounting.account('agt_stuck')!.reason, 'limit:memory', 'PSS 50 KiB over a 40 KiB budget: enforced as before');
  t.equal(terminated, 1);
  accounting.close();
  // nextSample waits for a sample that begins after it was asked for, not the one under way.
  let resolved = false;
  void next.then(() => (resolved = true));
  await new Promise((r) => setTimeout(r, 20));
  t.notOk(resolved, 'nextSample did not resolve with the sample already under way');
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

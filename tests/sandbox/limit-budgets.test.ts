// Budgets of a spawn request against the manifest, the over-budget check, /proc parsing and the limit reason in agent events.
import t from 'tap';
import { agentEvent } from '../../management-api/src/mesh/agent-event.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { INOTIFY_INSTANCES, INOTIFY_WATCHES, overBudget, type AgentUsage } from '../../management-api/src/sandbox/limits/budgets.js';
import { resolveLimits } from '../../management-api/src/sandbox/limits/request.js';
import { parseStat, readMemory, readProcFile, readStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { captureLogs } from '../api/support/harness.js';
import { waitFor } from '../helpers/wait.js';

const MIB = 1024 ** 2;
const ceiling = { memory: '1g', cpu_seconds: 600, processes: 32 };

t.test('the manifest gives every agent its budgets; a request lowers them', async (t) => {
  t.same(resolveLimits(ceiling, undefined), { memory_bytes: 1024 * MIB, cpu_seconds: 600, processes: 32 });
  t.same(resolveLimits(ceiling, { memory: '256m', cpu_seconds: 5 }), { memory_bytes: 256 * MIB, cpu_seconds: 5, processes: 32 });
  t.same(
    resolveLimits(ceiling, { memory: '1g', processes: 32 }),
    { memory_bytes: 1024 * MIB, cpu_seconds: 600, processes: 32 },
    'equal to the manifest is allowed',
  );
  t.same(resolveLimits(undefined, { processes: 3 }), { processes: 3 }, 'without a manifest ceiling, only what was asked');
  t.same(resolveLimits(undefined, undefined), {});
});

t.test('raising or malformed budgets are 400s naming the key', async (t) => {
  const refused: Array<[unknown, RegExp]> = [
    [{ memory: '2g' }, /^limits\.memory may only lower the manifest's sandbox\.limits\.memory \("1g"\); ask for at most that, or raise it in agentbox\.toml$/],
    [{ memory: '1048577k' }, /limits\.memory may only lower/],
    [{ cpu_seconds: 601 }, /limits\.cpu_seconds may only lower the manifest's sandbox\.limits\.cpu_seconds \(600\)/],
    [{ processes: 33 }, /limits\.processes may only lower/],
    [{ memory: 'lots' }, /limits\.memory "lots" must be a number with an optional unit k, m or g/],
    [{ memory: 512 }, /limits\.memory 512 must be a number/],
    [{ memory: '0m' }, /limits\.memory must be more than 0/],
    [{ cpu_seconds: 0 }, /limits\.cpu_seconds must be a whole number of at least 1/],
    [{ processes: 1.5 }, /limits\.processes must be a whole number/],
    [{ open_files: 10 }, /limits\.open_files is not a limit a spawn request may set/],
    [[], /limits must be an object/],
    [null, /limits must be an object/],
  ];
  for (const [requested, message] of refused) {
    t.throws(() => resolveLimits(ceiling, requested as never), { name: 'AdapterInputError', code: 'ABX_ERR_VALIDATION', message }, JSON.stringify(requested));
  }
});

t.test('over budget: processes, then memory (by PSS), then CPU', async (t) => {
  const usage: AgentUsage = { rss_bytes: 300 * MIB, pss_bytes: 100 * MIB, cpu_seconds: 10, processes: 5 };
  t.equal(overBudget(usage, {}), undefined, 'no budgets, never over');
  t.equal(overBudget(usage, { memory_bytes: 200 * MIB }), undefined, 'shared pages counted once: RSS over, PSS under');
  t.equal(overBudget(usage, { memory_bytes: 99 * MIB }), 'limit:memory');
  t.equal(overBudget(usage, { cpu_seconds: 10 }), undefined, 'at the budget is not over it');
  t.equal(overBudget(usage, { cpu_seconds: 9 }), 'limit:cpu');
  t.equal(overBudget(usage, { processes: 4, memory_bytes: 1, cpu_seconds: 1 }), 'limit:processes');
  t.equal(overBudget(usage, { memory_bytes: 1, cpu_seconds: 1 }), 'limit:memory');
  t.equal(overBudget({ ...usage, memfd_bytes: 100 * MIB }, { memory_bytes: 199 * MIB }), 'limit:memory', 'memory files held count with the PSS');
  t.equal(overBudget({ ...usage, memfd_bytes: 100 * MIB }, { memory_bytes: 200 * MIB }), undefined);
  t.equal(overBudget({ ...usage, inotify_instances: INOTIFY_INSTANCES }, {}), undefined, 'inotify instances: at the share is not over it');
  t.equal(overBudget({ ...usage, inotify_instances: INOTIFY_INSTANCES + 1 }, {}), 'limit:inotify', 'whatever the budgets asked');
  t.equal(overBudget({ ...usage, inotify_instances: INOTIFY_INSTANCES + 1 }, { cpu_seconds: 1 }), 'limit:cpu', 'checked after CPU');
  t.equal(overBudget({ ...usage, inotify_instances: 1, inotify_watches: INOTIFY_WATCHES }, {}), undefined, 'inotify watches: at the share is not over it');
  t.equal(overBudget({ ...usage, inotify_instances: 1, inotify_watches: INOTIFY_WATCHES + 1 }, {}), 'limit:inotify', 'one past it is');
  t.ok(INOTIFY_WATCHES >= 1024 && INOTIFY_WATCHES <= 8192, `the share is between 1,024 and 8,192 (${INOTIFY_WATCHES})`);
});

t.test('/proc parsing', async (t) => {
  const line = '4242 (a (tricky) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 7 3 20 0 1 0 987654 1000000 512 18446744073709551615';
  t.same(
    parseStat(4242, line),
    { pid: 4242, state: 'S', ppid: 1, pgrp: 4242, session: 4242, ownTicks: 300, reapedTicks: 10, startTime: 987654, rssPages: 512, threads: 1 },
    'a command name with spaces and parentheses',
  );
  t.equal(parseStat(1, ''), undefined, 'an empty read (a process going away)');
  t.equal(parseStat(1, '1 (x) S 0 1'), undefined, 'a truncated line');
  t.equal(readProcFile('/proc/0/stat'), undefined, 'a missing file is undefined, not an error');
  const self = readStat(process.pid)!;
  t.equal(self.pid, process.pid);
  t.equal(self.ppid, process.ppid);
  const memory = readMemory(self);
  t.ok(memory.rss > 10 * MIB && memory.pss > 0 && memory.pss <= memory.rss, `this process: RSS ${memory.rss}, PSS ${memory.pss}`);
  t.same(readMemory({ ...self, state: 'Z' }), { rss: 0, pss: 0 }, 'a zombie has no memory');
  const gone = readMemory({ ...self, pid: 0x3fffffff, rssPages: 3 });
  t.equal(gone.rss, gone.pss, 'a process whose smaps_rollup is gone falls back to the resident pages of its stat');
  t.ok(gone.rss >= 3 * 4096);
});

t.test('the limit reason is part of the agent exit event', async (t) => {
  const origin = { box: 'b', manifestSha256: 'f'.repeat(64) };
  const ended = {
    id: 'agt_1',
    name: 'n',
    command: 'x',
    args: [],
    state: 'terminated' as const,
    startedAt: 'a',
    endedAt: 'b',
    signal: 'SIGTERM',
    reason: 'limit:cpu' as const,
    usage: { rss_bytes: 1, pss_bytes: 1, cpu_seconds: 2, processes: 1 },
  };
  const event = agentEvent(ended, origin, new Date(0));
  const content = JSON.parse(event.content) as { type: string; agent: Record<string, unknown> };
  t.equal(content.type, 'agent.exit');
  t.equal(content.agent['reason'], 'limit:cpu');
  t.notOk('usage' in content.agent, 'figures stay out of the published event (states and ids only)');
});

t.test('an unreadable /proc costs a sample, not the API', async (t) => {
  const logs = captureLogs();
  const accounting = new AgentAccounting({
    logger: createLogger({ level: 'info', destination: logs.destination }),
    procRoot: '/nonexistent-proc',
    intervalMs: 5,
  });
  t.teardown(() => accounting.close());
  accounting.follow('agt_x', process.pid, {}, async () => undefined);
  await waitFor('the failure to be logged', () => logs.events('AgentSamplingFailed').length > 0);
  t.same(accounting.account('agt_x')?.usage, { rss_bytes: 0, pss_bytes: 0, cpu_seconds: 0, processes: 0 }, 'figures stay as they were');
  accounting.forget('agt_x');
  t.equal(accounting.account('agt_x'), undefined, 'a forgotten agent has no record');
});

// The agent watcher's diffing: the first listing is a silent baseline, each agent is reported once
// per event type, one seen only after it ended gets its spawn first, and a failing list is skipped.
import t from 'tap';
import { pino } from 'pino';
import type { AgentProcess } from '../../../management-api/src/adapters/orchestrator/orchestrator-adapter.js';
import { AgentWatcher } from '../../../management-api/src/mesh/agent-watcher.js';

const agent = (id: string, state: AgentProcess['state'], extra: Partial<AgentProcess> = {}): AgentProcess => ({
  id,
  name: `n-${id}`,
  command: '/bin/true',
  args: [],
  state,
  startedAt: '2030-01-01T00:00:00.000Z',
  ...extra,
});

t.test('diffs successive listings', async (t) => {
  let listing: AgentProcess[] | Error = [agent('old', 'running')];
  const seen: Array<[string, string]> = [];
  const watcher = new AgentWatcher({
    list: async () => {
      if (listing instanceof Error) throw listing;
      return listing;
    },
    onChange: (a) => void seen.push([a.id, a.state]),
    logger: pino({ level: 'silent' }),
    intervalMs: 60_000,
  });
  t.teardown(() => watcher.close());
  await watcher.poll();
  t.same(seen, [], 'agents present at start are not announced');

  listing = [agent('old', 'exited', { exitCode: 0 }), agent('a', 'running'), agent('b', 'failed', { exitCode: 2, endedAt: '2030-01-01T00:00:01.000Z' })];
  await watcher.poll();
  t.same(seen, [
    ['old', 'exited'],
    ['a', 'running'],
    ['b', 'running'],
    ['b', 'failed'],
  ]);
  seen.length = 0;
  await watcher.poll();
  t.same(seen, [], 'nothing new, nothing reported');

  listing = new Error('orchestrator degraded');
  await watcher.poll();
  listing = [agent('a', 'crash-loop'), agent('b', 'failed')];
  await Promise.all([watcher.poll(), watcher.poll(), watcher.poll()]);
  t.same(seen, [['a', 'crash-loop']], 'a failed listing is skipped; concurrent polls coalesce');

  // 'old' left the listing: forgotten, so a reused id would be announced afresh.
  listing = [agent('old', 'running')];
  seen.length = 0;
  await watcher.poll();
  t.same(seen, [['old', 'running']]);
});

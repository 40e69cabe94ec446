// Faults of orchestrator/local-procmgr: agents killed from outside, and agents a crashed API left behind.
import t from 'tap';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ended, processGone } from '../contract/orchestrator.contract.js';
import { onlySlot, startSlot } from '../contract/pods-harness.js';
import { waitFor } from '../helpers/wait.js';

const manifest = onlySlot('orchestrator', 'local-procmgr');

t.test('an agent killed from outside is reported failed with the signal that killed it', async (t) => {
  const h = await startSlot('orchestrator', manifest);
  t.teardown(() => h.close());
  for (const signal of ['SIGKILL', 'SIGTERM', 'SIGSEGV'] as const) {
    const agent = await h.ops.spawn({ name: `victim-${signal.toLowerCase()}`, command: 'sleep', args: ['30'] });
    process.kill(agent.pid!, signal);
    const final = await ended(h.ops, agent.id);
    t.match(final, { state: 'failed', signal }, signal);
    t.equal(final.exitCode, undefined, 'no exit code when a signal ended it');
    t.ok(final.endedAt);
  }
  t.equal(h.state(), 'healthy', 'a dying agent does not degrade the orchestrator');
});

t.test('agents left running by a crashed API are ended when it starts again', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-orphans-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  // The first "API" is never closed before the second starts: as if it had been killed.
  const crashed = await startSlot('orchestrator', manifest, { root });
  t.teardown(() => crashed.close());
  const orphan = await crashed.ops.spawn({ name: 'orphan', command: '/bin/sh', args: ['-c', 'sleep 30 & wait'] });
  const records = path.join(crashed.paths.runDir, 'agents');
  t.same(readdirSync(records), [`${orphan.id}.json`], 'a pid record is kept while it runs');

  const restarted = await startSlot('orchestrator', manifest, { root });
  t.teardown(() => restarted.close());
  await waitFor('the orphan to be killed', () => processGone(orphan.pid!), 5000);
  t.same(readdirSync(records), [], 'the record is gone');
  t.equal(restarted.state(), 'healthy');
  const fresh = await restarted.ops.spawn({ name: 'fresh', command: 'sleep', args: ['30'] });
  t.notOk(processGone(fresh.pid!), 'new agents run normally');
});

t.test('a pid record naming a reused pid does not kill the unrelated process', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-reuse-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('orchestrator', manifest, { root });
  t.teardown(() => first.close());
  const agent = await first.ops.spawn({ name: 'bystander', command: 'sleep', args: ['30'] });
  const { writeFileSync } = await import('node:fs');
  // Same pid, another start time: the record describes some earlier process.
  writeFileSync(path.join(first.paths.runDir, 'agents', `${agent.id}.json`), JSON.stringify({ pid: agent.pid, startTime: '1' }));
  const second = await startSlot('orchestrator', manifest, { root });
  t.teardown(() => second.close());
  t.notOk(processGone(agent.pid!), 'the process with the reused pid is untouched');
});

// Faults of orchestrator/external-stdio: the orchestrator command killed mid-run, a clear error, then recovery.
import t from 'tap';
import { ended, parentPid, processGone } from '../contract/orchestrator.contract.js';
import { startSlot } from '../contract/pods-harness.js';
import { referenceManifest } from '../contract/orchestrator-stdio-command.js';
import { waitFor } from '../helpers/wait.js';

// No periodic probe during the test: the failing call itself must be what degrades the slot.
const timing = { reconnectInitialMs: 200, reconnectMaxMs: 1000, healthIntervalMs: 600_000 };

t.test('orchestrator command killed → unavailable, degraded → respawned, healthy; its orphaned agents are ended', async (t) => {
  const h = await startSlot('orchestrator', await referenceManifest(), { timing });
  t.teardown(() => h.close());
  const before = await h.ops.spawn({ name: 'before', command: 'sleep', args: ['30'] });
  const orchestrator = parentPid(before.pid!);
  process.kill(orchestrator, 'SIGKILL');
  await waitFor('the orchestrator to die', () => processGone(orchestrator), 5000);

  const err = (await h.ops.list().catch((e: unknown) => e)) as Error & { code?: string };
  t.equal(err.code, 'ABX_ERR_ADAPTER_UNAVAILABLE');
  t.match(err.message, /adapter slot "orchestrator" backend unavailable: the orchestrator command exited on SIGKILL/);
  await waitFor('the slot to recover', () => h.state() === 'healthy', 15_000);

  const after = await h.ops.spawn({ name: 'after', command: '/bin/sh', args: ['-c', 'echo back'] });
  t.match(await ended(h.ops, after.id), { state: 'exited', exitCode: 0 });
  await waitFor('the agent orphaned by the dead orchestrator to be ended', () => processGone(before.pid!), 5000);
  await t.rejects(h.ops.status(before.id), { code: 'ABX_ERR_NOT_FOUND' }, 'the new orchestrator does not know the old agents');
});

t.test('a call in flight when the command dies fails at once with the reason', async (t) => {
  const h = await startSlot('orchestrator', await referenceManifest(), { timing: { ...timing, reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 } });
  t.teardown(() => h.close());
  const agent = await h.ops.spawn({ name: 'quiet', command: 'sleep', args: ['30'] });
  const orchestrator = parentPid(agent.pid!);
  // A follow waits on the orchestrator for new output: it is in flight when the kill lands.
  const stream = await h.ops.output(agent.id, { follow: true, signal: AbortSignal.timeout(20_000) });
  const reading = (async () => {
    for await (const _ of stream) void _;
  })();
  setTimeout(() => process.kill(orchestrator, 'SIGKILL'), 300);
  const started = Date.now();
  await t.rejects(reading, { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /exited on SIGKILL while agent\.output was in flight/ });
  t.ok(Date.now() - started < 4000, 'no waiting for a timeout');
  // The stream's own calls happen after its dispatch returned; the next dispatched call (or the
  // next health probe) is what degrades the slot.
  await t.rejects(h.ops.list(), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /exited on SIGKILL/ });
  t.equal(h.state(), 'degraded');
  await t.rejects(h.ops.list(), { code: 'ABX_ERR_ADAPTER_DEGRADED' }, 'further calls are refused while it reconnects');
  process.kill(agent.pid!, 'SIGKILL');
});

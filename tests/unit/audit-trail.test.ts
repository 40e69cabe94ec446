// The audit trail over a real local-jsonl log: records with their caller, in call order; a log that cannot take them fails nothing but is logged and counted, and a critical trail reports the unrecorded spawn.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Counter, Registry } from 'prom-client';
import { LocalJsonlEvents } from '../../management-api/src/adapters/events/local-jsonl.js';
import { ApiError } from '../../management-api/src/errors.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AuditTrail } from '../../management-api/src/observability/audit-trail.js';
import { captureLogs } from '../api/support/harness.js';

async function openLog(t: { teardown(fn: () => unknown): void }): Promise<{ log: LocalJsonlEvents; dir: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'agentbox-audit-'));
  const log = new LocalJsonlEvents({ dir });
  await log.connect(AbortSignal.timeout(5_000));
  t.teardown(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });
  return { log, dir };
}

function trail(log: LocalJsonlEvents, critical: boolean, usable = () => true) {
  const logs = captureLogs();
  const failures = new Counter({ name: 'audit_failed_test', help: 'test', labelNames: ['kind'] as const, registers: [new Registry()] });
  const audit = new AuditTrail({
    append: (events) => log.append(events),
    critical,
    usable,
    logger: createLogger({ level: 'info', destination: logs.destination }),
    failures,
  });
  return { audit, logs, failed: async () => (await failures.get()).values.map((v) => [v.labels['kind'], v.value]) };
}

const start = {
  id: 'agt_1',
  name: 'one',
  command: '/bin/true',
  args: [],
  cwd: 'one',
  envNames: ['A'],
  limits: { processes: 2 },
  sandbox: 'launcher' as const,
  pid: 42,
  startedAt: '2026-01-01T00:00:00.000Z',
};

t.test('hooks record in call order, with the caller the request runs as', async (t) => {
  const { log } = await openLog(t);
  const { audit } = trail(log, false);
  const hooks = audit.agentHooks();
  audit.as({ kind: 'api-key' }, () => hooks.started(start));
  hooks.terminating({ id: 'agt_1', name: 'one', graceMs: 5 }, { kind: 'box', reason: 'limit:cpu' });
  hooks.ended({
    id: 'agt_1',
    name: 'one',
    state: 'terminated',
    reason: 'limit:cpu',
    signal: 'SIGTERM',
    startedAt: start.startedAt,
    endedAt: '2026-01-01T00:00:01.500Z',
    usage: { rss_bytes: 1, pss_bytes: 1, cpu_seconds: 2, processes: 1 },
    peakPssBytes: 9,
  });
  hooks.started({ ...start, id: 'agt_2' });
  void audit.action({ kind: 'nip98', pubkey: 'ab' }, 'bead.open', 'beads', { bead: 'bd-1' });
  // Appends become durable in call order: once the last one is, all are.
  t.equal(await audit.record('bead.closed', 'beads', { bead: 'bd-1' }), true);
  const items = (await log.query({ limit: 10 })).items;
  t.same(
    items.map((e) => e.kind),
    ['agent.spawn', 'agent.terminate', 'agent.exit', 'agent.spawn', 'bead.open', 'bead.closed'],
  );
  t.match(items[0], { source: 'orchestrator', data: { agent: 'agt_1', envNames: ['A'], by: { kind: 'api-key' } } });
  t.match(items[1], { data: { by: { kind: 'box', reason: 'limit:cpu' } } });
  t.match(items[2], { data: { durationMs: 1500, usage: { cpu_seconds: 2, peak_pss_bytes: 9 }, signal: 'SIGTERM' } });
  t.notOk('exitCode' in items[2]!.data, 'no exit code for a signal');
  t.match(items[3], { data: { agent: 'agt_2', by: { kind: 'box', reason: 'internal' } } }, 'outside a request the box is named');
  t.match(items[4], { data: { bead: 'bd-1', by: { kind: 'nip98', pubkey: 'ab' } } });
  t.equal(await audit.spawnRecorded('agt_1'), true, 'not critical: nothing to wait for');
});

t.test('a log that cannot append fails no action; it is logged and counted', async (t) => {
  const { log } = await openLog(t);
  const { audit, logs, failed } = trail(log, false);
  await log.close();
  t.equal(await audit.record('bead.closed', 'beads', { bead: 'bd-1' }), false);
  await audit.action({ kind: 'api-key' }, 'bead.claimed', 'beads', { bead: 'bd-1' });
  t.same(await failed(), [
    ['bead.closed', 1],
    ['bead.claimed', 1],
  ]);
  t.equal(logs.events('AuditEventNotRecorded').length, 2);
  t.doesNotThrow(() => audit.admit('anything'), 'not critical: never refused');
});

t.test('critical: refused while the slot cannot append, and an unrecorded spawn is reported once', async (t) => {
  const { log } = await openLog(t);
  let usable = true;
  const { audit } = trail(log, true, () => usable);
  t.equal(audit.critical, true);
  t.doesNotThrow(() => audit.admit('starting an agent'));
  audit.agentHooks().started(start);
  t.equal(await audit.spawnRecorded('agt_1'), true, 'its record was written');
  await log.close();
  audit.agentHooks().started({ ...start, id: 'agt_2' });
  t.equal(await audit.spawnRecorded('agt_2'), false, 'its record could not be written');
  t.equal(await audit.spawnRecorded('agt_2'), true, 'asked once: nothing is kept');
  usable = false;
  const refused = (() => {
    try {
      audit.admit('starting an agent');
    } catch (err) {
      return err;
    }
  })();
  t.ok(refused instanceof ApiError);
  t.match(refused, { code: 'ABX_ERR_AUDIT_UNAVAILABLE', statusCode: 503, message: /starting an agent refused.*adapters\.critical/ });
});

// Non-critical slots degrade without failing /ready, refuse operations with 503, and recover in the background.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';
import { SLOTS } from '../../management-api/src/adapters/adapter.js';
import { notImplemented } from '../../management-api/src/adapters/not-implemented.js';
import { registry, type AdapterRegistry } from '../../management-api/src/adapters/registry.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "local-ruvector"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
// For tests about the events slot alone: memory off, so no real implementation is involved.
const eventsOnly = manifest.replace('memory = "local-ruvector"', 'memory = "off"');

async function sealed(box: TestServer): Promise<void> {
  await writeFile(box.paths.sealFile, '');
  await waitFor('READY', async () => (await box.api('/ready', { auth: false })).status === 200, 2_000);
}

t.test('a non-critical slot losing its backend: /ready stays 200 with it in degraded[], /health degraded, its routes 503, then restored', async (t) => {
  const [orchPort, eventsPort, memoryPort] = [await freePort(), await freePort(), await freePort()];
  const backends = [new TcpBackend(orchPort), new TcpBackend(eventsPort), new TcpBackend(memoryPort)];
  for (const b of backends) await b.start();
  const [, eventsBackend, memoryBackend] = backends as [TcpBackend, TcpBackend, TcpBackend];
  const box = await startTestServer({
    toml: manifest,
    overrides: {
      orchestrator: tcpAdapterModule('orchestrator', orchPort),
      events: tcpAdapterModule('events', eventsPort),
      memory: tcpAdapterModule('memory', memoryPort),
    },
  });
  t.teardown(async () => {
    await box.close();
    for (const b of backends) await b.stop();
  });
  await sealed(box);

  const accepted = await box.api('/v1/events', { body: { kind: 'agent.note', data: { n: 1 } } });
  t.equal(accepted.status, 201, 'events accepted while healthy');
  t.match(accepted.json, { event: { kind: 'agent.note', source: 'api', data: { n: 1 }, seq: 1 } });
  t.ok(
    eventsBackend.received.some((l) => l.includes('"op":"append"')),
    'the operation reached the backend',
  );

  await memoryBackend.stop();
  await eventsBackend.stop();
  const degraded = await waitFor('both slots degraded', async () => {
    const r = await box.api('/ready', { auth: false });
    return (r.json['degraded'] as string[]).length === 2 ? r : undefined;
  });
  t.equal(degraded.status, 200, 'non-critical degradation does not fail readiness');
  t.same(degraded.json['degraded'], ['memory', 'events']);
  const health = await box.api('/health', { auth: false });
  t.equal(health.json['status'], 'degraded');
  t.match(health.json['slots'], {
    memory: { state: 'degraded', critical: false },
    events: { state: 'degraded' },
    orchestrator: { state: 'healthy', critical: true },
    beads: { state: 'off' },
  });

  const refused = await box.api('/v1/events', { body: { kind: 'agent.note' } });
  t.equal(refused.status, 503);
  t.equal(refused.json['error'], 'ABX_ERR_ADAPTER_DEGRADED');
  t.match(refused.json['message'], /events.*degraded/);

  await eventsBackend.start();
  await waitFor('events restored', async () => (await box.api('/v1/events', { body: { kind: 'agent.back' } })).status === 201);
  const after = await box.api('/ready', { auth: false });
  t.same(after.json['degraded'], ['memory'], 'only the slot still without a backend stays degraded');
});

t.test('a backend that dies between probes: the failing operation answers 503 unavailable and degrades the slot at once', async (t) => {
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  const events = new TcpBackend(eventsPort);
  await orch.start();
  await events.start();
  const box = await startTestServer({
    toml: eventsOnly,
    // Probes rarely, so only the failed operation can notice the loss.
    timing: { healthIntervalMs: 60_000, reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
    overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) },
  });
  t.teardown(async () => {
    await box.close();
    await orch.stop();
    await events.stop();
  });
  await events.stop();
  await waitFor('the connection drop to reach the adapter', () => new Promise((r) => setTimeout(() => r(true), 50)));
  const failed = await box.api('/v1/events', { body: { kind: 'agent.note' } });
  t.equal(failed.status, 503);
  t.equal(failed.json['error'], 'ABX_ERR_ADAPTER_UNAVAILABLE');
  const next = await box.api('/v1/events', { body: { kind: 'agent.note' } });
  t.equal(next.json['error'], 'ABX_ERR_ADAPTER_DEGRADED', 'the slot is degraded from then on');
  t.match((await box.api('/health', { auth: false })).json['slots'], { events: { state: 'degraded', reason: /unavailable: .*connection lost/ } });
});

t.test('a backend down at start: the slot starts degraded, and recovers when a server appears on its port', async (t) => {
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  await orch.start();
  const box = await startTestServer({
    toml: eventsOnly,
    overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) },
  });
  const late = new TcpBackend(eventsPort);
  t.teardown(async () => {
    await box.close();
    await orch.stop();
    await late.stop();
  });
  t.match((await box.api('/health', { auth: false })).json['slots'], { events: { state: 'degraded', reason: /^connect-failed: .*ECONNREFUSED/ } });
  await sealed(box);
  const ready = await box.api('/ready', { auth: false });
  t.equal(ready.status, 200, 'a non-critical slot down at start does not fail readiness');
  t.same(ready.json['degraded'], ['events']);
  await late.start();
  await waitFor(
    'events healthy',
    async () => ((await box.api('/health', { auth: false })).json['slots'] as Record<string, { state: string }>)['events']?.state === 'healthy',
  );
  t.ok(box.logs.events('SlotRestored').some((e) => e['slot'] === 'events'));
});

t.test('a backend that accepts but never answers: connect times out', async (t) => {
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  const silent = new TcpBackend(eventsPort, { silent: true });
  await orch.start();
  await silent.start();
  const started = Date.now();
  const box = await startTestServer({
    toml: eventsOnly,
    timing: { connectTimeoutMs: 300, reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
    overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) },
  });
  t.teardown(async () => {
    await box.close();
    await orch.stop();
    await silent.stop();
  });
  t.ok(Date.now() - started < 3_000, 'start-up is bounded by the connect deadline');
  t.match((await box.api('/health', { auth: false })).json['slots'], { events: { state: 'degraded', reason: 'connect-timeout: no connection within 300 ms' } });
});

t.test('implementations that do not exist yet are reported degraded (not-implemented), never healthy', async (t) => {
  // A registry where nothing but `off` exists, as before the adapter implementations landed.
  const stubs = Object.fromEntries(
    SLOTS.map((slot) => [
      slot,
      {
        local: { impl: registry[slot].local.impl, load: notImplemented(slot, registry[slot].local.impl) },
        external: { impl: registry[slot].external.impl, load: notImplemented(slot, registry[slot].external.impl) },
        off: registry[slot].off,
      },
    ]),
  ) as unknown as AdapterRegistry;
  const box = await startTestServer({ toml: '', registry: stubs });
  t.teardown(() => box.close());
  await writeFile(box.paths.sealFile, '');
  const ready = await waitFor('the seal to be seen', async () => {
    const r = await box.api('/ready', { auth: false });
    return !(r.json['missing'] as string[]).includes('seal') ? r : undefined;
  });
  t.equal(ready.status, 503, 'the critical orchestrator is not implemented');
  t.same(ready.json['missing'], ['adapter:orchestrator']);
  t.match(ready.json['reason'], /orchestrator \(local-procmgr\) is degraded: not-implemented/);
  t.same(ready.json['degraded'], ['beads', 'pods', 'memory', 'events']);
  const slots = (await box.api('/health', { auth: false })).json['slots'] as Record<string, { state: string; reason: string; adapter: string }>;
  for (const [slot, s] of Object.entries(slots)) {
    t.equal(s.state, 'degraded', `${slot} degraded`);
    t.equal(s.reason, 'not-implemented', `${slot} says why`);
  }
  t.equal(slots['beads']?.adapter, 'beads/local-sqlite');
  const refused = await box.api('/v1/events', { body: { kind: 'x' } });
  t.equal(refused.json['error'], 'ABX_ERR_ADAPTER_DEGRADED');
  const direct = await (await notImplemented('events', 'local-jsonl')()).create({} as never);
  const err: unknown = await direct.append([]).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(err, { code: 'ABX_ERR_ADAPTER_DEGRADED' }, 'a stand-in refuses operations even if called directly');
});

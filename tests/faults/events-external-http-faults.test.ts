// events/external-http when its sink is down at start, dies mid-run, or is down across an API
// restart: acknowledged events are spooled durably and delivered, in order, when the sink returns.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { StoredEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import { waitFor } from '../helpers/wait.js';
import { quickRetries, sinkManifest, startSink } from '../contract/events-sink-server.js';
import { startSlot } from '../contract/pods-harness.js';

const TOKEN = 'fault-sink-token-91c0d7e2';
const FAST = { connectTimeoutMs: 2_000, healthIntervalMs: 50, healthTimeoutMs: 1_000, reconnectInitialMs: 30, reconnectMaxMs: 150 };
const options = (root: string) => ({ root, env: { SINK_TOKEN: TOKEN }, timing: FAST, overrides: { events: quickRetries() } });
const ids = (events: readonly StoredEvent[], kind: string) => events.filter((e) => e.kind === kind).map((e) => e.id);

t.test('sink down at start: the slot starts degraded and recovers when the sink comes up', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-sink-late-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const sink = await startSink({ token: TOKEN });
  await sink.stop();
  const h = await startSlot('events', sinkManifest(sink.url), options(root));
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /cannot reach the sink at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  await t.rejects(h.ops.append([{ kind: 'fault.late', source: 't' }]), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
  await sink.start();
  t.teardown(() => sink.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 5_000);
  const [e] = await h.ops.append([{ kind: 'fault.late', source: 't' }]);
  await waitFor('delivery', () => sink.received.some((r) => r.id === e!.id));
});

t.test('sink dies mid-run: appends are still acknowledged (spooled), then all delivered in order', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-sink-dies-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const sink = await startSink({ token: TOKEN });
  t.teardown(() => sink.stop());
  const h = await startSlot('events', sinkManifest(sink.url), options(root));
  t.teardown(() => h.close());
  const acked: StoredEvent[] = [...(await h.ops.append([{ kind: 'fault.mid', source: 't', data: { phase: 'up' } }]))];
  await waitFor('the first delivery', () => sink.received.length === 1);

  await sink.stop();
  for (let i = 0; i < 50; i++) acked.push(...(await h.ops.append([{ kind: 'fault.mid', source: 't', data: { phase: 'down', i } }])));
  t.equal(h.state(), 'healthy', 'an outage is absorbed by the spool: appends keep being acknowledged');
  t.equal(sink.received.length, 1, 'nothing reached the stopped sink');

  await sink.start();
  await waitFor('delivery of everything spooled', () => sink.received.length === acked.length, 10_000);
  t.same(
    ids(sink.received, 'fault.mid'),
    acked.map((e) => e.id),
    'every acknowledged event, once, in order',
  );
});

t.test('sink down across an API restart: the spool survives and is delivered after the restart', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-sink-restart-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const sink = await startSink({ token: TOKEN });
  t.teardown(() => sink.stop());
  const first = await startSlot('events', sinkManifest(sink.url), options(root));
  await sink.stop();
  const acked = await first.ops.append(Array.from({ length: 30 }, (_, i) => ({ kind: 'fault.restart', source: 't', data: { i } })));
  await first.close();

  const second = await startSlot('events', sinkManifest(sink.url), options(root));
  t.teardown(() => second.close());
  t.equal(second.state(), 'degraded', 'the restarted API cannot reach the sink');
  await sink.start();
  await waitFor('delivery after the restart', () => sink.received.length === 30, 10_000);
  t.same(
    ids(sink.received, 'fault.restart'),
    acked.map((e) => e.id),
    'the events acknowledged before the restart, in order',
  );
  const [next] = await second.ops.append([{ kind: 'fault.restart', source: 't' }]);
  t.equal(next!.seq, acked.at(-1)!.seq + 1, 'the spool’s seq continues');
});

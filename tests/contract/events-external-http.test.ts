// events/external-http through the resolver, against a real HTTP sink on 127.0.0.1: the events
// contract, and what only a forwarding sink has (spool, batches, order, retries, refusals).
import t from 'tap';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { eventsContract } from './events.contract.js';
import { quickRetries, sinkManifest, startSink, type EventSink } from './events-sink-server.js';
import { MESH_CLIENT, onlySlot, startSlot, type HarnessOptions } from './pods-harness.js';

const TOKEN = 'sink-token-4b8e0f7d2c6a9e13';
const FAST = { connectTimeoutMs: 2_000, healthIntervalMs: 50, healthTimeoutMs: 1_000, reconnectInitialMs: 30, reconnectMaxMs: 150 };

function start(sink: EventSink, options: HarnessOptions = {}) {
  return startSlot('events', sinkManifest(sink.url), { env: { SINK_TOKEN: TOKEN }, timing: FAST, overrides: { events: quickRetries() }, ...options });
}

let sink: EventSink;
t.before(async () => {
  sink = await startSink({ token: TOKEN });
});
t.teardown(() => sink.stop());

t.test('contract (the registry’s own module, token from a 0600 file)', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-sink-token-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  const toml = onlySlot('events', 'external-http', `${MESH_CLIENT}[integrations.events]\nurl = "${sink.url}"\ntoken_file = "${path.join(dir, 'token')}"\n`);
  eventsContract(t, () => startSlot('events', toml, { timing: FAST }));
});

t.test('delivery is batched and in order; the cursor is durable; delivered spool files are dropped', async (t) => {
  const h = await start(sink, { overrides: { events: quickRetries({ spoolFileBytes: 16 * 1024, batchEvents: 100 }) } });
  t.teardown(() => h.close());
  const before = sink.deliveries.length;
  const acked = (
    await Promise.all(
      Array.from({ length: 12 }, (_, b) => h.ops.append(Array.from({ length: 50 }, (_, i) => ({ kind: 'test.order', source: 't', data: { b, i } })))),
    )
  ).flat();
  await waitFor('delivery of 600 events', () => sink.received.filter((e) => e.kind === 'test.order').length === 600, 10_000);
  const got = sink.received.filter((e) => e.kind === 'test.order');
  t.same(
    got.map((e) => e.id),
    [...acked].sort((a, b) => a.seq - b.seq).map((e) => e.id),
    'the sink received every event once, in seq order',
  );
  const batches = sink.deliveries.slice(before);
  t.ok(
    batches.every((b) => b.length <= 100),
    'no batch exceeds the batch size',
  );
  t.ok(batches.length < 600 / 2, `600 events took ${batches.length} POSTs`);
  const spool = path.join(h.paths.stateDir, 'events-spool');
  await waitFor(
    'the cursor',
    () => JSON.parse(readFileSync(path.join(spool, 'delivered.json'), 'utf8')).delivered === acked.reduce((m, e) => Math.max(m, e.seq), 0),
  );
  await waitFor('delivered spool files to be pruned', () => readdirSync(spool).filter((f) => f.endsWith('.jsonl')).length === 1);
});

t.test('a sink answering 5xx is retried until it accepts, without reordering or loss', async (t) => {
  const h = await start(sink);
  t.teardown(() => h.close());
  sink.failNext(503, 3);
  const acked = [
    ...(await h.ops.append([{ kind: 'test.retry', source: 't', data: { n: 1 } }])),
    ...(await h.ops.append([{ kind: 'test.retry', source: 't', data: { n: 2 } }])),
  ];
  await waitFor('delivery after the failures', () => sink.received.filter((e) => e.kind === 'test.retry').length === 2);
  t.same(
    sink.received.filter((e) => e.kind === 'test.retry').map((e) => e.id),
    acked.map((e) => e.id),
  );
  t.equal(h.state(), 'healthy', 'transient sink errors do not degrade the slot');
});

t.test('a sink that keeps refusing (4xx) degrades the slot; the spooled events are delivered once it accepts', async (t) => {
  const h = await start(sink);
  t.teardown(() => h.close());
  sink.failNext(400, 1_000_000);
  const acked = await h.ops.append([{ kind: 'test.refused', source: 't' }]);
  await waitFor('the slot to degrade', () => h.state() === 'degraded', 5_000);
  t.match(h.reason(), /sink-rejecting: the sink answered 400/);
  await t.rejects(h.ops.append([{ kind: 'test.refused', source: 't' }]), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
  sink.failNext(0, 0);
  await waitFor('delivery once the sink accepts', () => sink.received.some((e) => e.id === acked[0]!.id), 10_000);
  await waitFor('the slot to recover', () => h.state() === 'healthy', 5_000);
});

t.test('a wrong token fails the connect with a reason naming the fix; no spool is created', async (t) => {
  const h = await startSlot('events', sinkManifest(sink.url), {
    env: { SINK_TOKEN: 'not-the-token-00000000' },
    timing: { ...FAST, reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 },
  });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /refused our credentials \(401\).*token_env/);
  t.notMatch(h.reason(), /not-the-token/);
  t.notOk(existsSync(path.join(h.paths.stateDir, 'events-spool')));
});

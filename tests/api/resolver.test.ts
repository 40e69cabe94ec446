// Resolver mechanics against real failing backends: fatal critical slots, deadlines, backoff, hung health checks.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { FatalAdapterError } from '../../management-api/src/adapter-errors.js';
import { Backoff, DeadlineError, withDeadline } from '../../management-api/src/adapters/backoff.js';
import type { AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { EventsAdapter } from '../../management-api/src/adapters/events/events-adapter.js';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { startTestServer, waitFor } from './support/harness.js';

const local = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';

t.test('an orchestrator that cannot connect at start is fatal', async (t) => {
  const nobody = await freePort();
  const err: unknown = await startTestServer({ toml: local, overrides: { orchestrator: tcpAdapterModule('orchestrator', nobody) } }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, FatalAdapterError);
  t.equal((err as FatalAdapterError).slot, 'orchestrator');
  t.match((err as Error).message, /critical adapter slot "orchestrator" failed to connect: connect-failed: .*ECONNREFUSED/);
});

t.test('a slot named in adapters.critical is fatal at start too, and fails /ready when it degrades later', async (t) => {
  const toml = `${local}critical = ["orchestrator", "events"]\n`;
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  await orch.start();
  t.teardown(() => orch.stop());
  const overrides = { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) };
  await t.rejects(startTestServer({ toml, overrides }), { name: 'FatalAdapterError', slot: 'events' });

  const events = new TcpBackend(eventsPort);
  await events.start();
  const box = await startTestServer({ toml, overrides });
  t.teardown(async () => {
    await box.close();
    await events.stop();
  });
  await writeFile(box.paths.sealFile, '');
  const ok = await waitFor('READY', async () => {
    const r = await box.api('/ready', { auth: false });
    return r.status === 200 ? r : undefined;
  });
  t.same(ok.json['requirements'], [
    'seal',
    'mount:state',
    'mount:workspace',
    'mount:run',
    'disk:state',
    'disk:workspace',
    'adapter:events',
    'adapter:orchestrator',
  ]);
  await events.stop();
  const down = await waitFor('UNREADY', async () => {
    const r = await box.api('/ready', { auth: false });
    return r.status === 503 ? r : undefined;
  });
  t.same(down.json['missing'], ['adapter:events']);
});

t.test('a backend that stops answering: the health probe times out and the slot degrades, then recovers', async (t) => {
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  const events = new TcpBackend(eventsPort);
  await orch.start();
  await events.start();
  const box = await startTestServer({
    toml: local,
    timing: { healthTimeoutMs: 150 },
    overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) },
  });
  t.teardown(async () => {
    await box.close();
    await orch.stop();
    await events.stop();
  });
  events.setSilent(true);
  const slots = async () => (await box.api('/health', { auth: false })).json['slots'] as Record<string, { state: string; reason?: string }>;
  const hung = await waitFor('events degraded by a hung health check', async () => {
    const s = (await slots())['events'];
    return s?.state === 'degraded' ? s : undefined;
  });
  t.match(hung.reason, /^(health-timeout: no answer within 150 ms|connect-timeout)/);
  events.setSilent(false);
  await waitFor('events healthy again', async () => (await slots())['events']?.state === 'healthy');
});

t.test('a factory that throws (bad configuration) leaves the slot degraded with the reason', async (t) => {
  const orchPort = await freePort();
  const orch = new TcpBackend(orchPort);
  await orch.start();
  const broken: AdapterModule<EventsAdapter> = {
    ADAPTER: 'events/broken',
    CONTRACT_VERSION: '1.0.0',
    create: () => {
      throw new Error('integrations.events.url is empty');
    },
  };
  const box = await startTestServer({ toml: local, overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: broken } });
  t.teardown(async () => {
    await box.close();
    await orch.stop();
  });
  const slots = (await box.api('/health', { auth: false })).json['slots'] as Record<string, { state: string; reason?: string }>;
  t.equal(slots['events']?.state, 'degraded');
  t.equal(slots['events']?.reason, 'connect-failed: integrations.events.url is empty');
});

t.test('Backoff doubles with jitter up to its ceiling and resets', async (t) => {
  const mid = new Backoff(100, 1_000, () => 0.5);
  t.same([mid.next(), mid.next(), mid.next(), mid.next(), mid.next()], [100, 200, 400, 800, 1_000]);
  mid.reset();
  t.equal(mid.next(), 100);
  const low = new Backoff(100, 1_000, () => 0);
  const high = new Backoff(100, 1_000, () => 0.999999);
  t.equal(low.next(), 80, 'at most 20 % below');
  t.equal(high.next(), 120, 'at most 20 % above');
});

t.test('withDeadline rejects at the deadline even when the work ignores its signal, and follows an outer abort', async (t) => {
  const failure = (p: Promise<unknown>): Promise<unknown> =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );
  // The deadline timer is unref'ed (it must never keep the API alive): hold the loop open here.
  const keepAlive = setTimeout(() => undefined, 5_000);
  t.teardown(() => clearTimeout(keepAlive));
  let sawAbort = false;
  const started = Date.now();
  const late = await failure(
    withDeadline('ignoring', 50, (signal) => {
      signal.addEventListener('abort', () => (sawAbort = true));
      return new Promise<never>(() => undefined);
    }),
  );
  t.type(late, DeadlineError);
  t.equal((late as DeadlineError).ms, 50);
  t.ok(Date.now() - started >= 45, 'waited for the deadline');
  t.ok(sawAbort, 'the signal fired');
  t.equal(await withDeadline('quick', 1_000, async () => 42), 42);
  const outer = new AbortController();
  const pending = failure(
    withDeadline('outer', 10_000, (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))), outer.signal),
  );
  outer.abort();
  t.match(await pending, { message: 'stopped' });
});

// A relay link against endpoints that misbehave at the TCP level: one that accepts and never
// answers the WebSocket handshake (the connect timeout abandons the socket) and one that refuses.
import t from 'tap';
import net from 'node:net';
import { once } from 'node:events';
import { Registry } from 'prom-client';
import { pino } from 'pino';
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';
import { createMeshMetrics } from '../../../management-api/src/mesh/mesh-metrics.js';
import { DEFAULT_LINK_TIMING, RelayLink } from '../../../management-api/src/mesh/relay-link.js';
import { captureLogs } from '../../api/support/harness.js';
import { startTestRelay } from '../../helpers/nostr-relay.js';
import { waitFor } from '../../helpers/wait.js';

const timing = { ...DEFAULT_LINK_TIMING, connectTimeoutMs: 150, publishTimeoutMs: 300, retryInitialMs: 30, retryMaxMs: 60 };

t.test('a handshake that never completes times out without an uncaught error, and is retried', async (t) => {
  const sockets: net.Socket[] = [];
  const silent = net.createServer((s) => void sockets.push(s));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  const port = (silent.address() as net.AddressInfo).port;
  const logs = captureLogs();
  const link = new RelayLink(`ws://127.0.0.1:${port}`, {
    logger: pino({ level: 'debug' }, logs.destination),
    metrics: createMeshMetrics(new Registry()),
    timing,
    onChange: () => undefined,
  });
  t.teardown(async () => {
    link.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });
  link.start();
  // Two timed-out attempts: the first one's abandoned socket did not crash the process.
  await waitFor('a second attempt', () => sockets.length >= 2, 5_000);
  t.equal(link.reachable, false);
  t.ok(
    logs.events('RelayUnreachable').some((e) => /timed out/.test(String(e['reason']))),
    'the timeout is logged as the reason',
  );
});

t.test('a refused connection is retried until the relay listens; queued events then go out', async (t) => {
  const relay = await startTestRelay();
  const port = relay.port;
  await relay.stop();
  const metrics = createMeshMetrics(new Registry());
  let changes = 0;
  const link = new RelayLink(relay.url, { logger: pino({ level: 'silent' }), metrics, timing, onChange: () => void (changes += 1) });
  t.teardown(async () => {
    link.close();
    await relay.close();
  });
  link.start();
  const event = finalizeEvent({ kind: 4750, created_at: Math.floor(Date.now() / 1000), tags: [], content: '{}' }, generateSecretKey());
  link.enqueue(event);
  await new Promise((r) => setTimeout(r, 100));
  t.equal(link.queued, 1, 'waits while unreachable');
  await relay.start();
  t.equal(relay.port, port);
  // The queue empties when the relay's OK arrives, just after it stored the event.
  await waitFor('published and acknowledged', () => link.queued === 0, 5_000);
  t.equal((await relay.events({ ids: [event.id] })).length, 1);
  t.equal(changes, 1, 'one change: reachable');
  link.close();
  t.equal(link.reachable, false);
  link.enqueue(event);
  t.equal(link.queued, 0, 'a closed link takes nothing');
});

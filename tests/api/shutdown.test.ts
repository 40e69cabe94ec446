// Shutdown: requests stuck on a hung backend are answered after the grace period, and requests
// arriving while the API closes get the uniform ABX_ERR_SHUTTING_DOWN answer.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import net from 'node:net';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { startTestServer, waitFor } from './support/harness.js';

const eventsOnly = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';

async function hungBox(t: { teardown(fn: () => Promise<void>): void }, graceMs: number) {
  const [orchPort, eventsPort] = [await freePort(), await freePort()];
  const orch = new TcpBackend(orchPort);
  const events = new TcpBackend(eventsPort);
  await orch.start();
  await events.start();
  const box = await startTestServer({
    toml: eventsOnly,
    timing: { shutdownGraceMs: graceMs, healthIntervalMs: 60_000 },
    overrides: { orchestrator: tcpAdapterModule('orchestrator', orchPort), events: tcpAdapterModule('events', eventsPort) },
  });
  t.teardown(async () => {
    await box.close();
    await orch.stop();
    await events.stop();
  });
  events.setSilent(true);
  return { box, events };
}

t.test('a request stuck on a hung backend does not hold up shutdown: after the grace period its adapter is closed and it answers 503', async (t) => {
  const { box, events } = await hungBox(t, 300);
  const pending = box.api('/v1/events', { body: { kind: 'agent.stuck' } });
  await waitFor('the operation to reach the backend', () => events.received.some((l) => l.includes('agent.stuck')));
  const started = Date.now();
  await box.close();
  const elapsed = Date.now() - started;
  t.ok(elapsed >= 250 && elapsed < 3_000, `closed after the grace period (${elapsed} ms)`);
  const answer = await pending;
  t.equal(answer.status, 503, 'the stuck request got an answer');
  t.equal(answer.json['error'], 'ABX_ERR_ADAPTER_UNAVAILABLE');
  t.equal(box.logs.events('ShutdownGraceExpired').length, 1);
});

/** One answer read off a raw connection. */
interface RawAnswer {
  status: number;
  head: string;
  json: Record<string, unknown>;
}

/**
 * Keep a connection busy with a request the hung backend never answers (so closing does not reap
 * it), start closing the API, send `late` on the same connection, and return both answers.
 */
async function lateRequestWhileClosing(
  t: { teardown(fn: () => void): void },
  box: Awaited<ReturnType<typeof hungBox>>['box'],
  events: TcpBackend,
  late: string,
): Promise<RawAnswer[]> {
  const { port } = new URL(box.server.apiUrl);
  const socket = net.connect({ host: '127.0.0.1', port: Number(port) });
  t.teardown(() => socket.destroy());
  let received = '';
  socket.on('data', (c: Buffer) => (received += c.toString('utf8')));
  await new Promise((resolve) => socket.once('connect', resolve));
  const body = JSON.stringify({ kind: 'agent.stuck' });
  socket.write(
    `POST /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${box.key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  await waitFor('the operation to reach the backend', () => events.received.some((l) => l.includes('agent.stuck')));
  const closing = box.close();
  await new Promise((r) => setTimeout(r, 100));
  socket.write(late);
  await closing;
  await waitFor('both answers', () => (received.match(/HTTP\/1\.1 /g) ?? []).length === 2 || socket.destroyed);
  return received
    .split('HTTP/1.1 ')
    .slice(1)
    .map((r) => ({
      status: Number(r.slice(0, 3)),
      head: r.slice(0, r.indexOf('\r\n\r\n')),
      json: JSON.parse(r.slice(r.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>,
    }));
}

t.test('a request arriving on an open connection while the API closes gets 503 ABX_ERR_SHUTTING_DOWN in the usual shape', async (t) => {
  const { box, events } = await hungBox(t, 500);
  const answers = await lateRequestWhileClosing(t, box, events, `GET /v1/meta HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${box.key}\r\n\r\n`);
  t.equal(answers.length, 2, 'two answers on the connection');
  t.match(answers[0], { status: 503, json: { error: 'ABX_ERR_ADAPTER_UNAVAILABLE' } }, 'the stuck request, after the grace period');
  t.match(
    answers[1],
    { status: 503, json: { error: 'ABX_ERR_SHUTTING_DOWN', message: 'the API is shutting down' } },
    'the late one, refused in the usual shape',
  );
});

t.test('from the moment the API starts closing /ready is 503 (missing "api")', async (t) => {
  const { box, events } = await hungBox(t, 500);
  await writeFile(box.paths.sealFile, '');
  await waitFor('READY', async () => (await box.api('/ready', { auth: false })).status === 200);
  const answers = await lateRequestWhileClosing(t, box, events, 'GET /ready HTTP/1.1\r\nHost: x\r\nX-Request-Id: probe-during-close\r\n\r\n');
  t.equal(answers.length, 2);
  t.match(answers[1], { status: 503, json: { ready: false, reason: 'the API is shutting down', missing: ['api'] } }, '/ready says why');
  t.match(answers[1]?.head, /x-request-id: probe-during-close/i, 'probes echo the request id themselves');
  t.match(box.logs.events('ReadinessChanged').at(-1), { ready: false, missing: ['api'] }, 'the flip is logged');
});

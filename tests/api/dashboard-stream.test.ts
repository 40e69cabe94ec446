// The dashboard's live stream over real HTTP: four topics on connect, pushes on change, silence when nothing changes, ended on close.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { startTestServer } from './support/harness.js';
import { openSse, signIn, type SseMessage } from './support/dashboard.js';

const TOML = '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const parse = (m: SseMessage) => JSON.parse(m.data) as Record<string, unknown>;

t.test('the stream sends the four topics, then what changes, and nothing else', async (t) => {
  const box = await startTestServer({ toml: TOML });
  t.teardown(() => box.close());
  const b = await signIn(box);
  const stream = await openSse(`${box.server.apiUrl}/v1/dashboard/stream`, { cookie: b.cookie });
  t.teardown(() => stream.close());
  t.equal(stream.status, 200);
  t.match(stream.headers['content-type'], /^text\/event-stream/);
  t.match(
    parse(await stream.next((m) => m.event === 'overview')),
    { ready: { status: 503, body: { ready: false, missing: ['seal'] } } },
    'not ready before the seal',
  );
  await writeFile(box.paths.sealFile, 'sealed\n');
  await stream.next((m) => m.event === 'overview' && m.data.includes('"status":200'));

  const first = await Promise.all(
    ['overview', 'agents', 'beads', 'mesh'].map((topic) => stream.next((m) => m.event === topic && (topic !== 'overview' || m.data.includes('"status":200')))),
  );
  const [overview, agents, beads, mesh] = first.map(parse);
  t.match(overview, {
    ready: { status: 200, body: { ready: true } },
    health: { status: String, slots: { beads: { impl: 'local-sqlite' } } },
    meta: { manifestSha256: String, version: String },
  });
  t.notOk('uptimeSec' in (overview!['health'] as object), 'no ever-changing uptime in the overview');
  t.same((overview!['health'] as Record<string, unknown>)['startedAt'], (await box.api('/health', { auth: false })).json['startedAt']);
  t.same(agents, { available: true, agents: [], sandbox: null });
  t.same(beads, { available: true, ready: [], beads: [] });
  t.same(mesh, { available: false, host: false, mode: 'standalone', reason: 'mesh.mode = "standalone"' }, 'a standalone box: no mesh host, and its mode');

  // Quiet: with nothing changing, the once-a-second check sends nothing.
  const before = stream.messages.length;
  await new Promise((r) => setTimeout(r, 1_300));
  t.equal(stream.messages.length, before, 'nothing re-sent over a quiet second');

  const created = await box.api('/v1/beads', { body: { title: 'watch me' } });
  t.equal(created.status, 201);
  const beadMsg = parse(await stream.next((m) => m.event === 'beads' && m.data.includes('watch me')));
  t.match(beadMsg, { available: true, ready: [{ title: 'watch me' }], beads: [{ title: 'watch me', status: 'open' }] });

  const spawned = await box.api('/v1/agents', { body: { name: 'sleeper', command: '/bin/sh', args: ['-c', 'sleep 30'] } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const id = (spawned.json['agent'] as { id: string }).id;
  const agentMsg = parse(await stream.next((m) => m.event === 'agents' && m.data.includes(id)));
  t.match(agentMsg, { available: true, agents: [{ id, name: 'sleeper' }] });
  t.equal((await box.api(`/v1/agents/${id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  await stream.next((m) => m.event === 'agents' && /"state":"(terminated|exited)"/.test(m.data));

  // A bead changed by another writer (not through this API) shows up through the shared check.
  const viaOther = stream.messages.length;
  await box.server.app.agentbox.resolver.slot('beads').create({ title: 'written elsewhere' });
  await stream.next((m) => m.event === 'beads' && m.data.includes('written elsewhere'));
  t.ok(stream.messages.length > viaOther);

  // Never the same JSON twice in a row for a topic.
  const lastByTopic = new Map<string, string>();
  for (const m of stream.messages) {
    t.not(lastByTopic.get(m.event), m.data, `no repeated ${m.event} message`);
    lastByTopic.set(m.event, m.data);
  }
  const gauge = /agentbox_dashboard_streams (\d+)/.exec(await (await fetch(box.server.metricsUrl)).text());
  t.equal(gauge?.[1], '1', 'one open stream counted');
});

t.test('topics can be chosen; the stream needs a credential; closing the app ends it', async (t) => {
  const box = await startTestServer({ toml: TOML });
  let closed = false;
  t.teardown(async () => {
    if (!closed) await box.close();
  });
  t.equal((await fetch(`${box.server.apiUrl}/v1/dashboard/stream`)).status, 401, 'no session, no key');
  const bad = await box.api('/v1/dashboard/stream?topics=overview,nope');
  t.equal(bad.status, 400);
  const stream = await openSse(`${box.server.apiUrl}/v1/dashboard/stream?topics=beads`, { authorization: `Bearer ${box.key}` });
  await stream.next((m) => m.event === 'beads');
  await new Promise((r) => setTimeout(r, 200));
  t.same(
    stream.messages.map((m) => m.event),
    ['beads'],
    'only the topic asked for',
  );
  const started = Date.now();
  await box.close();
  closed = true;
  await stream.ended;
  t.ok(Date.now() - started < 5_000, 'the app closed without waiting for the stream');
});

t.test("a session's open streams are cut when it ends: sign-out, expiry", async (t) => {
  const TTL_MS = 1_500;
  const box = await startTestServer({
    toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n',
    ui: { sessionTtlMs: TTL_MS },
  });
  t.teardown(() => box.close());
  const stay = await signIn(box);
  const leave = await signIn(box);
  const open = async (b: typeof stay, pathname: string) => {
    const stream = await openSse(`${box.server.apiUrl}${pathname}`, { cookie: b.cookie });
    t.equal(stream.status, 200, `${pathname} opened with the session`);
    return stream;
  };
  const dashboard = await open(leave, '/v1/dashboard/stream?topics=overview');
  const events = await open(leave, '/v1/events/stream');
  const other = await open(stay, '/v1/dashboard/stream?topics=overview');
  await dashboard.next((m) => m.event === 'overview');
  const out = await fetch(`${box.server.apiUrl}/ui/session`, {
    method: 'DELETE',
    headers: { cookie: leave.cookie, origin: leave.origin, 'x-csrf-token': leave.csrfToken },
  });
  t.equal(out.status, 204, 'signed out');
  await Promise.all([dashboard.ended, events.ended]);
  for (const stream of [dashboard, events])
    t.equal(stream.messages.at(-1)?.event, 'session-ended', "the signed-out session's stream ended at once, its last record saying why");
  t.match(dashboard.raw(), /event: session-ended\ndata: \{\}\n\n$/, 'ended cleanly after that record (no broken chunked response)');
  t.equal(
    await Promise.race([other.ended.then(() => 'ended'), new Promise((r) => setTimeout(() => r('open'), 200))]),
    'open',
    "another session's stream stays open",
  );
  // The other session runs out after TTL_MS: its stream ends then, with no request to notice it.
  await other.ended;
  t.equal(other.messages.at(-1)?.event, 'session-ended', 'and ends when that session expires');
});

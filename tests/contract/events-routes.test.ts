// /v1/events over HTTP on the real app: append, query, and the live SSE stream with resume.
import t from 'tap';
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import type { StoredEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import { removeBox, startBox, type BeadsBox } from './beads-remote-box.js';
import { onlySlot } from './pods-harness.js';

const manifest = onlySlot('events', 'local-jsonl');

async function call(box: BeadsBox, method: string, pathname: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Bearer ${box.key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(box.url + pathname, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const post = async (box: BeadsBox, kind: string, data: Record<string, unknown> = {}) =>
  (await call(box, 'POST', '/v1/events', { kind, source: 'route-test', data })).body['event'] as StoredEvent;

/**
 * An SSE client on node:http (one socket per stream, closed by `close()`): the records it has read
 * so far, and a way to wait for more.
 */
async function openStream(box: BeadsBox, query: string, headers: Record<string, string> = {}) {
  const records: Array<{ id?: string; event?: string; data: string }> = [];
  let ended = false;
  let finish: () => void = () => undefined;
  const reading = new Promise<void>((resolve) => (finish = resolve));
  const { req, res } = await new Promise<{ req: ClientRequest; res: IncomingMessage }>((resolve, reject) => {
    const req = request(`${box.url}/v1/events/stream${query}`, { headers: { authorization: `Bearer ${box.key}`, ...headers } }, (res) => resolve({ req, res }));
    req.on('error', reject).end();
  });
  let buffer = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => !l.startsWith(':') && l.includes(': '))
          .map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]),
      );
      if (fields['data'] !== undefined) records.push(fields as { data: string });
    }
  });
  const done = () => {
    ended = true;
    finish();
  };
  res.on('end', done).on('close', done).on('error', done);
  const until = async (n: number) => {
    const deadline = Date.now() + 5_000;
    while (records.length < n && Date.now() < deadline && !ended) await new Promise((r) => setTimeout(r, 10));
    return records;
  };
  return { status: res.statusCode, contentType: res.headers['content-type'], records, until, ended: () => ended, reading, close: () => req.destroy() };
}

t.test('append and query over HTTP', async (t) => {
  const box = await startBox({ toml: manifest });
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const created = await call(box, 'POST', '/v1/events', { kind: 'agent.note', data: { text: 'hello' } });
  t.equal(created.status, 201);
  t.match(created.body['event'], { kind: 'agent.note', source: 'api', data: { text: 'hello' }, seq: 1 });
  for (let i = 0; i < 4; i++) await post(box, i % 2 ? 'agent.odd' : 'agent.even', { i });
  const page = await call(box, 'GET', '/v1/events?kind=agent.odd&kind=agent.note&limit=2');
  t.same(
    (page.body['items'] as StoredEvent[]).map((e) => e.kind),
    ['agent.note', 'agent.odd'],
  );
  const rest = await call(box, 'GET', `/v1/events?kind=agent.odd&kind=agent.note&limit=2&cursor=${page.body['nextCursor'] as string}`);
  t.same(
    (rest.body['items'] as StoredEvent[]).map((e) => e.seq),
    [5],
  );
  t.notOk('nextCursor' in rest.body, 'the last page has no cursor');
  const first = (created.body['event'] as StoredEvent).time;
  t.equal(((await call(box, 'GET', `/v1/events?until=${encodeURIComponent(first)}`)).body['items'] as StoredEvent[]).length >= 1, true, 'a time bound');
  for (const bad of ['/v1/events?kind=Not%20A%20Kind', '/v1/events?limit=0', '/v1/events?since=yesterday', '/v1/events?colour=red']) {
    t.match(await call(box, 'GET', bad), { status: 400, body: { error: 'ABX_ERR_VALIDATION' } }, bad);
  }
  t.match(await call(box, 'POST', '/v1/events', { kind: 'agent.note', data: 'not an object' }), { status: 400, body: { error: 'ABX_ERR_VALIDATION' } });
});

t.test('the SSE stream: live events by kind, resume with Last-Event-ID, replay with since', async (t) => {
  const box = await startBox({ toml: manifest });
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const early = await post(box, 'build.started', { n: 0 });
  const live = await openStream(box, '?kind=build.done');
  t.equal(live.status, 200);
  t.match(live.contentType, /^text\/event-stream/);
  await post(box, 'build.started', { n: 1 });
  const done1 = await post(box, 'build.done', { n: 1 });
  const done2 = await post(box, 'build.done', { n: 2 });
  const got = await live.until(2);
  t.same(
    got.map((r) => JSON.parse(r.data) as StoredEvent),
    [done1, done2],
    'only the kind asked for, as stored',
  );
  t.same(
    got.map((r) => r.id),
    [`${done1.seq}@${done1.time}`, `${done2.seq}@${done2.time}`],
    'each record carries a resumable id',
  );
  live.close();

  await post(box, 'build.done', { n: 3 });
  const resumed = await openStream(box, '?kind=build.done', { 'last-event-id': got[0]!.id! });
  const replay = await resumed.until(2);
  t.same(
    replay.map((r) => (JSON.parse(r.data) as StoredEvent).data['n']),
    [2, 3],
    'resuming replays what came after the last id, without repeats',
  );
  const done4 = await post(box, 'build.done', { n: 4 });
  t.same(JSON.parse((await resumed.until(3))[2]!.data), done4, 'then continues live');
  resumed.close();

  const fromStart = await openStream(box, `?since=${encodeURIComponent(early.time)}`);
  const all = await fromStart.until(6);
  t.same(
    all.map((r) => (JSON.parse(r.data) as StoredEvent).seq),
    [1, 2, 3, 4, 5, 6],
    'since replays every kind from that time',
  );
  fromStart.close();

  for (const [query, headers] of [
    ['', { 'last-event-id': 'garbage' }],
    ['?since=yesterday', {}],
  ] as const) {
    const bad = await fetch(`${box.url}/v1/events/stream${query}`, { headers: { authorization: `Bearer ${box.key}`, ...headers } });
    t.match(
      { status: bad.status, body: await bad.json() },
      { status: 400, body: { error: 'ABX_ERR_VALIDATION' } },
      `refused before streaming: ${query || JSON.stringify(headers)}`,
    );
  }
});

t.test('closing the API ends open streams instead of hanging on them', async (t) => {
  const box = await startBox({ toml: manifest });
  t.teardown(() => removeBox(box));
  const stream = await openStream(box, '');
  const started = Date.now();
  await box.stop();
  await stream.reading;
  t.ok(stream.ended(), 'the stream ended');
  t.ok(Date.now() - started < 5_000, 'the close did not wait for the client');
});

t.test('the stream needs the key, and answers 503 JSON when the slot is off', async (t) => {
  const box = await startBox({ toml: onlySlot('events', 'off') });
  t.teardown(async () => {
    await box.stop();
    removeBox(box);
  });
  const anonymous = await fetch(`${box.url}/v1/events/stream`);
  t.equal(anonymous.status, 401);
  const off = await fetch(`${box.url}/v1/events/stream`, { headers: { authorization: `Bearer ${box.key}` } });
  t.match({ status: off.status, body: await off.json() }, { status: 503, body: { error: 'ABX_ERR_ADAPTER_OFF' } });
});

// The in-process fetch /mcp's tools call the API through: a real fastify app answers as over a socket (hooks, status,
// headers, bodies both ways), streams as it writes, and an aborted follow closes the server's side of the request.
import t from 'tap';
import Fastify, { type FastifyInstance } from 'fastify';
import { inProcessFetch } from '../../management-api/src/mcp/in-process-fetch.js';

const BASE = 'http://127.0.0.1:8080';

async function appWithRoutes(): Promise<{ app: FastifyInstance; closed: Promise<unknown[]> }> {
  const app = Fastify();
  let streamClosed!: (v: unknown[]) => void;
  const closed = new Promise<unknown[]>((resolve) => (streamClosed = resolve));
  // The gate every route is behind, as the API's request gate is.
  app.addHook('onRequest', async (request, reply) => {
    if (request.headers.authorization !== 'Bearer right') return reply.code(401).header('x-request-id', request.id).send({ error: 'ABX_ERR_AUTH_INVALID' });
  });
  app.get('/v1/thing', async (request, reply) => reply.header('x-seen-host', request.headers.host).send({ q: request.query }));
  app.post('/v1/echo', async (request) => ({ got: request.body }));
  app.put('/v1/bytes', { bodyLimit: 1 << 20 }, async (request) => ({ length: (request.body as Buffer).length }));
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.delete('/v1/thing', async (_request, reply) => reply.code(204).send());
  app.get('/v1/follow', async (_request, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: output\ndata: first\n\n');
    // Never ends by itself: only the client's going away does.
    const timer = setInterval(() => res.write(': keep-alive\n\n'), 20);
    res.on('close', () => {
      clearInterval(timer);
      streamClosed(['closed']);
    });
  });
  await app.ready();
  return { app, closed };
}

t.test('answers as the app would over a socket, through its hooks', async (t) => {
  const { app } = await appWithRoutes();
  t.teardown(() => app.close());
  const f = inProcessFetch(app, BASE);
  const auth = { authorization: 'Bearer right' };

  const got = await f(`${BASE}/v1/thing?a=1&b=two`, { headers: auth });
  t.equal(got.status, 200);
  t.equal(got.headers.get('x-seen-host'), '127.0.0.1:8080', 'the host is the base URL one');
  t.same(await got.json(), { q: { a: '1', b: 'two' } });

  const refused = await f(`${BASE}/v1/thing`, { headers: { authorization: 'Bearer wrong' } });
  t.equal(refused.status, 401, "the app's hooks judge the credential");
  t.ok(refused.headers.get('x-request-id'));
  t.same(await refused.json(), { error: 'ABX_ERR_AUTH_INVALID' });

  const echoed = await f(`${BASE}/v1/echo`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"x":[1,2]}' });
  t.same(await echoed.json(), { got: { x: [1, 2] } });

  const bytes = new Uint8Array(300_000).fill(7);
  const put = await f(`${BASE}/v1/bytes`, {
    method: 'PUT',
    headers: { ...auth, 'content-type': 'application/octet-stream' },
    body: bytes.subarray(1000),
  });
  t.same(await put.json(), { length: 299_000 }, 'a view of bytes is sent as that view');

  const deleted = await f(`${BASE}/v1/thing`, { method: 'DELETE', headers: auth });
  t.equal(deleted.status, 204);
  t.equal(deleted.body, null);

  const missing = await f(`${BASE}/v1/nothing`, { headers: auth });
  t.equal(missing.status, 404);
});

t.test('refuses another origin and a body it cannot send', async (t) => {
  const { app } = await appWithRoutes();
  t.teardown(() => app.close());
  const f = inProcessFetch(app, BASE);
  await t.rejects(f('http://127.0.0.1:9999/v1/thing'), /not this API/);
  await t.rejects(f('http://example.com:8080/v1/thing'), /not this API/);
  await t.rejects(f(`${BASE}/v1/echo`, { method: 'POST', body: new Blob(['x']) }), /a body is a string or bytes/);
});

t.test('a stream is read as it is written, and an abort closes it on the server', async (t) => {
  const { app, closed } = await appWithRoutes();
  t.teardown(() => app.close());
  const f = inProcessFetch(app, BASE);
  const controller = new AbortController();
  const res = await f(`${BASE}/v1/follow`, { headers: { authorization: 'Bearer right' }, signal: controller.signal });
  t.equal(res.headers.get('content-type'), 'text/event-stream');
  const reader = res.body!.getReader();
  const first = await reader.read();
  t.match(Buffer.from(first.value!).toString(), /data: first/, 'the first event arrives while the response is open');
  controller.abort();
  t.same(await closed, ['closed'], "the server's response closes");
  await t.rejects(reader.read(), 'the reader ends with the abort');
});

t.test('an abort before the answer ends a held request on the server and rejects the fetch', async (t) => {
  const app = Fastify();
  t.teardown(() => app.close());
  let arrived!: () => void;
  const held = new Promise<void>((resolve) => (arrived = resolve));
  let gone!: () => void;
  const left = new Promise<void>((resolve) => (gone = resolve));
  // Like an approval hold: no answer until something happens, or the client goes away.
  app.get('/v1/hold', (request) => {
    request.raw.once('close', gone);
    arrived();
    return new Promise(() => undefined);
  });
  await app.ready();
  const controller = new AbortController();
  const pending = inProcessFetch(app, BASE)(`${BASE}/v1/hold`, { signal: controller.signal });
  await held;
  controller.abort();
  await t.rejects(pending, 'the fetch fails with the abort');
  await left;
  t.pass("the server's request closed");
});

// /v1/pods over HTTP on the real app (local-fs behind it): bytes and content types, ETag headers, preconditions, listings, refusals.
import t from 'tap';
import { request as httpRequest } from 'node:http';
import { registerPodRoutes } from '../../management-api/src/routes/pods-routes.js';
import { startApiBox, type ApiBox } from './pods-api-box.js';
import { onlySlot } from './pods-harness.js';

const probe = { method: 'GET', url: '/v1/pods/*' } as const;
let box: ApiBox;
t.before(async () => {
  box = await startApiBox(onlySlot('pods', 'local-fs'), registerPodRoutes, probe, { limits: { bodyLimit: 64 * 1024 } });
});
t.teardown(() => box?.close());

const json = async (res: Response) => (await res.json()) as Record<string, unknown>;

t.test('PUT, GET with validators, conditional requests, DELETE', async (t) => {
  const put = await box.call('/v1/pods/notes/a.md', { method: 'PUT', body: '# hello', headers: { 'content-type': 'text/markdown' } });
  t.equal(put.status, 201);
  const etag = put.headers.get('etag')!;
  t.match(etag, /^"[^"]+"$/);
  t.equal(put.headers.get('location'), '/v1/pods/notes/a.md');
  t.same(await json(put), { path: '/notes/a.md', etag, created: true });

  const get = await box.call('/v1/pods/notes/a.md');
  t.equal(get.status, 200);
  t.equal(await get.text(), '# hello');
  t.match(get.headers.get('content-type'), /^text\/markdown/);
  t.equal(get.headers.get('etag'), etag);
  t.ok(get.headers.get('last-modified'));
  t.equal((await box.call('/v1/pods/notes/a.md', { headers: { 'if-none-match': etag } })).status, 304, 'If-None-Match on GET');
  const head = await box.call('/v1/pods/notes/a.md', { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers.get('etag'), etag, 'HEAD carries the ETag');

  const stale = await box.call('/v1/pods/notes/a.md', { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain', 'if-match': '"stale"' } });
  t.equal(stale.status, 412);
  t.match(await json(stale), { error: 'ABX_ERR_PRECONDITION_FAILED' });
  const replaced = await box.call('/v1/pods/notes/a.md', { method: 'PUT', body: '# two', headers: { 'content-type': 'text/markdown', 'if-match': etag } });
  t.equal(replaced.status, 200);
  t.equal((await json(replaced))['created'], false);
  const again = await box.call('/v1/pods/notes/a.md', { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain', 'if-none-match': '*' } });
  t.equal(again.status, 412);

  t.equal((await box.call('/v1/pods/notes/a.md', { method: 'DELETE', headers: { 'if-match': etag } })).status, 412, 'DELETE with the old ETag');
  const newEtag = replaced.headers.get('etag')!;
  t.equal((await box.call('/v1/pods/notes/a.md', { method: 'DELETE', headers: { 'if-match': newEtag } })).status, 204);
  const gone = await box.call('/v1/pods/notes/a.md');
  t.equal(gone.status, 404);
  t.match(await json(gone), { error: 'ABX_ERR_NOT_FOUND' });
});

t.test('any content type is stored as bytes, JSON included', async (t) => {
  const bytes = Buffer.from([0, 255, 1, 254]);
  t.equal((await box.call('/v1/pods/raw.bin', { method: 'PUT', body: bytes, headers: { 'content-type': 'application/octet-stream' } })).status, 201);
  t.same([...Buffer.from(await (await box.call('/v1/pods/raw.bin')).arrayBuffer())], [...bytes]);
  t.equal(
    (await box.call('/v1/pods/broken.json', { method: 'PUT', body: '{not json', headers: { 'content-type': 'application/json' } })).status,
    201,
    'not parsed',
  );
  t.equal(await (await box.call('/v1/pods/broken.json')).text(), '{not json');
  const noType = await box.call('/v1/pods/untyped', { method: 'PUT', body: 'x' });
  t.equal(noType.status, 201);
});

t.test('containers: created by an empty PUT, listed as JSON with paging', async (t) => {
  t.equal((await box.call('/v1/pods/box/', { method: 'PUT' })).status, 201);
  for (const n of ['c', 'a', 'b']) await box.call(`/v1/pods/box/${n}.txt`, { method: 'PUT', body: n, headers: { 'content-type': 'text/plain' } });
  const page = await json(await box.call('/v1/pods/box/?limit=2'));
  t.same(
    (page['items'] as Array<{ path: string }>).map((i) => i.path),
    ['/box/a.txt', '/box/b.txt'],
  );
  const rest = await json(await box.call(`/v1/pods/box/?limit=2&cursor=${encodeURIComponent(page['nextCursor'] as string)}`));
  t.same(
    (rest['items'] as Array<{ path: string }>).map((i) => i.path),
    ['/box/c.txt'],
  );
  t.equal(rest['nextCursor'], undefined);
  const root = await json(await box.call('/v1/pods/'));
  t.ok((root['items'] as Array<{ path: string; isContainer: boolean }>).some((i) => i.path === '/box/' && i.isContainer));
  t.equal((await box.call('/v1/pods/box/', { method: 'DELETE' })).status, 409, 'not empty');
});

t.test('traversal is refused over HTTP too, whatever the encoding', async (t) => {
  // fetch normalises "..", and "%2e%2e" with it (WHATWG URL): send the raw request line instead.
  const raw = (requestPath: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${box.url}/v1/pods/`, { headers: { authorization: `Bearer ${box.key}` } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.path = requestPath;
      req.on('error', reject);
      req.end();
    });
  for (const p of [
    '/v1/pods/a/../../etc/passwd',
    '/v1/pods/a/%2e%2e/%2e%2e/etc/passwd',
    '/v1/pods/..%2f..%2fetc/passwd',
    '/v1/pods/a/%252e%252e/x',
    '/v1/pods/.abx-meta.x',
    '/v1/pods/a/./b',
  ]) {
    const res = await raw(p);
    t.equal(res.status, 400, p);
    t.match(JSON.parse(res.body), { error: 'ABX_ERR_VALIDATION' });
  }
});

t.test('authentication, body limit and header checks', async (t) => {
  const anon = await box.call('/v1/pods/', { auth: false });
  t.equal(anon.status, 401);
  t.equal((await box.call('/v1/pods/x.txt', { method: 'PUT', body: 'x', auth: false })).status, 401);
  const big = await box.call('/v1/pods/big.bin', { method: 'PUT', body: Buffer.alloc(70 * 1024), headers: { 'content-type': 'application/octet-stream' } });
  t.equal(big.status, 413);
  const weird = await box.call('/v1/pods/x.txt', { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain', 'if-none-match': '"abc"' } });
  t.equal(weird.status, 400);
  const badLimit = await box.call('/v1/pods/?limit=0');
  t.equal(badLimit.status, 400);
});

t.test('pods off: 503 ABX_ERR_ADAPTER_OFF on every route', async (t) => {
  const off = await startApiBox(onlySlot('pods', 'off'), registerPodRoutes, probe);
  t.teardown(() => off.close());
  for (const [method, p] of [
    ['GET', '/v1/pods/a.txt'],
    ['GET', '/v1/pods/'],
    ['PUT', '/v1/pods/a.txt'],
    ['DELETE', '/v1/pods/a.txt'],
  ] as const) {
    const res = await off.call(p, { method, ...(method === 'PUT' ? { body: 'x', headers: { 'content-type': 'text/plain' } } : {}) });
    t.equal(res.status, 503, `${method} ${p}`);
    t.match(await json(res), { error: 'ABX_ERR_ADAPTER_OFF' });
  }
});

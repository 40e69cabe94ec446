// How the HTTP clients of the beads and events slots map a service's answers onto adapter errors,
// against a real server on 127.0.0.1 that answers with whatever status the test asks for.
import t from 'tap';
import { createServer } from 'node:http';
import { callJson } from '../../management-api/src/adapters/http-client/http-call.js';

let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };
let seen: { method?: string; url?: string; authorization?: string; body: string } = { body: '' };
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (d: string) => (body += d));
  req.on('end', () => {
    seen = { method: req.method, url: req.url, authorization: req.headers.authorization, body };
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
  });
});
t.before(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
t.teardown(() => new Promise((resolve) => server.close(resolve)));

const base = () => `http://127.0.0.1:${(server.address() as { port: number }).port}/api/`;
const call = (extra: Partial<Parameters<typeof callJson>[0]> = {}) =>
  callJson<unknown>({
    slot: 'beads',
    base: base(),
    token: 'secret-token-123456789',
    timeoutMs: 2_000,
    operation: 'claim',
    method: 'POST',
    path: '/v1/beads/bd-1/claim',
    body: { claimant: 'a' },
    subject: 'bead bd-1',
    ...extra,
  });
const error = (code: string, message: string) => JSON.stringify({ error: code, message });

t.test('a 2xx answer is parsed; the request carries the token, the JSON body and a clean URL', async (t) => {
  answer = { status: 200, body: '{"ok":true}' };
  t.same(await call(), { ok: true });
  t.match(seen, { method: 'POST', url: '/api/v1/beads/bd-1/claim', authorization: 'Bearer secret-token-123456789', body: '{"claimant":"a"}' });
  answer = { status: 204, body: '' };
  t.equal(await call(), undefined, 'an empty 2xx body');
  await call({ token: undefined });
  t.equal(seen.authorization, undefined, 'no token, no Authorization header');
});

t.test('each status maps to the adapter error a caller can act on, never quoting the token', async (t) => {
  const cases: Array<[number, string, Record<string, unknown>]> = [
    [400, error('ABX_ERR_VALIDATION', 'title is required'), { code: 'ABX_ERR_VALIDATION', message: 'title is required' }],
    [404, error('ABX_ERR_NOT_FOUND', 'bead bd-1 not found'), { code: 'ABX_ERR_NOT_FOUND', message: 'bead bd-1 not found' }],
    [404, error('ABX_ERR_NOT_FOUND', 'no route POST /api/v1/beads/bd-1/claim'), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /answered 404.*no route/ }],
    [409, error('ABX_ERR_CONFLICT', 'bead bd-1 is already claimed by b'), { code: 'ABX_ERR_CONFLICT', message: 'bead bd-1 is already claimed by b' }],
    [412, error('ABX_ERR_PRECONDITION_FAILED', 'stale'), { code: 'ABX_ERR_PRECONDITION_FAILED' }],
    [413, error('ABX_ERR_BODY_TOO_LARGE', 'too big'), { code: 'ABX_ERR_VALIDATION', message: /413 ABX_ERR_BODY_TOO_LARGE: too big/ }],
    [
      401,
      error('ABX_ERR_AUTH_INVALID', 'wrong key'),
      { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /401.*refused our credentials.*integrations\.beads\.token_env/ },
    ],
    [403, 'forbidden', { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /403/ }],
    [500, error('ABX_ERR_INTERNAL', 'internal error'), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /answered 500 ABX_ERR_INTERNAL: internal error/ }],
    [502, '<html>bad gateway</html>', { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /answered 502: <html>bad gateway/ }],
    [503, error('ABX_ERR_ADAPTER_DEGRADED', 'slot beads degraded'), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE' }],
    [504, error('ABX_ERR_ADAPTER_TIMEOUT', 'slow'), { code: 'ABX_ERR_ADAPTER_TIMEOUT', message: /claim/ }],
  ];
  for (const [status, body, expected] of cases) {
    answer = { status, body };
    const err = await call().then(
      () => undefined,
      (e: Error) => e,
    );
    t.match(err, expected, `${status} ${body.slice(0, 40)}`);
    t.notMatch(err?.message ?? '', 'secret-token', 'the token is not in the message');
  }
  answer = { status: 429, body: error('ABX_ERR_RATE_LIMITED', 'slow down'), headers: { 'retry-after': '7' } };
  await t.rejects(call(), { code: 'ABX_ERR_RATE_LIMITED', headers: { 'retry-after': '7' } }, 'a rate limit is passed on with Retry-After');
  answer = { status: 200, body: 'not json' };
  await t.rejects(call(), { code: 'ABX_ERR_ADAPTER_UNAVAILABLE', message: /not JSON/ });
});

t.test('an unreachable service, a missed deadline and a caller abort are told apart', async (t) => {
  const gone = createServer();
  await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
  const port = (gone.address() as { port: number }).port;
  await new Promise((resolve) => gone.close(resolve));
  await t.rejects(call({ base: `http://127.0.0.1:${port}/` }), {
    code: 'ABX_ERR_ADAPTER_UNAVAILABLE',
    message: new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`),
  });
  const slow = createServer(() => undefined);
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    slow.closeAllConnections();
    return new Promise((resolve) => slow.close(resolve));
  });
  const slowBase = `http://127.0.0.1:${(slow.address() as { port: number }).port}`;
  await t.rejects(call({ base: slowBase, timeoutMs: 100 }), { code: 'ABX_ERR_ADAPTER_TIMEOUT', message: /did not complete claim within 100 ms/ });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('closing')), 50);
  await t.rejects(call({ base: slowBase, signal: controller.signal }), { message: 'closing' }, 'the caller’s own abort reason comes back');
});

// Auth and input: the 0600 key file, bearer auth on every non-probe route, validation, limits, one error shape.
import t from 'tap';
import { chmod, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import pino from 'pino';
import { ApiKeyFileError, ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { bearerVerifier } from '../../management-api/src/auth/bearer-auth.js';
import { errorResponse, registerErrorHandling } from '../../management-api/src/http/error-handler.js';
import { registerAjv2020 } from '../../management-api/src/http/validator.js';
import { captureLogs, makeRoot, startTestServer } from './support/harness.js';

t.test('the key file is created 0600 in a 0700 directory, reused, repaired, or refused', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  const logs = captureLogs();
  const logger = pino({ level: 'info' }, logs.destination);
  const file = root.paths.apiKeyFile;
  const first = await ensureApiKey(file, logger);
  t.ok(first.created);
  t.match(first.key, /^[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
  t.equal((await lstat(file)).mode & 0o777, 0o600);
  t.equal((await lstat(path.dirname(file))).mode & 0o777, 0o700);
  t.equal((await readFile(file, 'utf8')).trim(), first.key);
  t.notMatch(logs.text(), first.key, 'the key is never logged');

  const again = await ensureApiKey(file, logger);
  t.same(again, { key: first.key, created: false }, 'reused');

  await chmod(file, 0o644);
  await chmod(path.dirname(file), 0o755);
  t.equal((await ensureApiKey(file, logger)).key, first.key);
  t.equal((await lstat(file)).mode & 0o777, 0o600, 'file permissions repaired');
  t.equal((await lstat(path.dirname(file))).mode & 0o777, 0o700, 'directory permissions repaired');
  t.match(logs.events('ApiKeyPermissionsRepaired'), [{ previousMode: '644' }]);
  t.match(logs.events('SecretsDirPermissionsRepaired'), [{ previousMode: '755' }]);

  const other = path.join(root.dir, 'elsewhere');
  await writeFile(other, 'x'.repeat(50), { mode: 0o600 });
  const linked = path.join(root.paths.secretsDir, 'linked-key');
  await symlink(other, linked);
  await t.rejects(ensureApiKey(linked, logger), { name: 'ApiKeyFileError', message: /not a regular file/ });
  const short = path.join(root.paths.secretsDir, 'short-key');
  await writeFile(short, 'tooshort\n', { mode: 0o600 });
  await t.rejects(ensureApiKey(short, logger), { message: /does not hold a usable key/ });
  t.ok(new ApiKeyFileError('x') instanceof Error);
});

t.test('concurrent creators end up with one key', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await mkdir(root.paths.secretsDir, { recursive: true, mode: 0o700 });
  const logger = pino({ level: 'silent' });
  const results = await Promise.all(Array.from({ length: 8 }, () => ensureApiKey(root.paths.apiKeyFile, logger)));
  t.equal(new Set(results.map((r) => r.key)).size, 1);
  t.equal(results.filter((r) => r.created).length, 1, 'exactly one created it');
});

t.test('bearer verification', async (t) => {
  const verify = bearerVerifier('k'.repeat(43));
  t.equal(verify(undefined), 'missing');
  t.equal(verify(''), 'missing');
  t.equal(verify(`Bearer ${'k'.repeat(43)}`), 'ok');
  t.equal(verify(`bearer ${'k'.repeat(43)}`), 'ok', 'the scheme is case-insensitive');
  t.equal(verify(`Bearer ${'k'.repeat(42)}`), 'invalid', 'a shorter key');
  t.equal(verify(`Bearer ${'k'.repeat(44)}`), 'invalid', 'a longer key');
  t.equal(verify(`Basic ${'k'.repeat(43)}`), 'invalid', 'another scheme');
  t.equal(verify('Bearer'), 'invalid');
});

t.test('over HTTP: probes are public, everything else needs the key; bodies are validated; errors share one shape', async (t) => {
  const box = await startTestServer({ limits: { max: 1_000, bodyLimit: 2_048 } });
  t.teardown(() => box.close());
  for (const probe of ['/livez', '/ready', '/health']) t.not((await box.api(probe, { auth: false })).status, 401, `${probe} is public`);

  const missing = await box.api('/v1/events', { body: { kind: 'agent.note' }, auth: false });
  t.equal(missing.status, 401);
  t.equal(missing.json['error'], 'ABX_ERR_AUTH_REQUIRED');
  t.match(missing.json['message'], /Authorization: Bearer/);
  t.equal(missing.headers.get('www-authenticate'), 'Bearer realm="agentbox"');
  const wrong = await box.api('/v1/events', { body: { kind: 'agent.note' }, auth: 'not-the-key-at-all-but-long-enough-000000' });
  t.same(Object.keys(wrong.json).sort(), ['error', 'message']);
  t.equal(wrong.json['error'], 'ABX_ERR_AUTH_INVALID');
  t.equal((await box.api('/v1/meta', { auth: false })).status, 401, '/v1/meta needs the key');
  t.equal((await box.api('/docs/json', { auth: false })).status, 401, '/docs/json needs the key');
  t.equal((await box.api('/v1/unknown', { auth: false })).status, 401, 'unknown routes do not reveal themselves without the key');
  t.ok(box.logs.events('AuthRejected').length >= 1, 'wrong keys are logged');

  const cases: Array<[string, Parameters<typeof box.api>[1], number, string]> = [
    ['a kind breaking the pattern', { body: { kind: 'Not Valid' } }, 400, 'ABX_ERR_VALIDATION'],
    ['a missing kind', { body: { source: 'x' } }, 400, 'ABX_ERR_VALIDATION'],
    ['an unknown property', { body: { kind: 'a.b', extra: 1 } }, 400, 'ABX_ERR_VALIDATION'],
    ['a wrongly typed field (no coercion of bodies)', { body: { kind: 'a.b', data: 'text' } }, 400, 'ABX_ERR_VALIDATION'],
    ['malformed JSON', { rawBody: '{"kind":' }, 400, 'ABX_ERR_MALFORMED_BODY'],
    ['an empty JSON body', { rawBody: '', headers: { 'content-type': 'application/json' } }, 400, 'ABX_ERR_MALFORMED_BODY'],
    ['a body over the limit', { body: { kind: 'a.b', data: { pad: 'x'.repeat(4_000) } } }, 413, 'ABX_ERR_BODY_TOO_LARGE'],
    ['a non-JSON content type', { rawBody: 'kind=a', headers: { 'content-type': 'text/csv' } }, 415, 'ABX_ERR_UNSUPPORTED_MEDIA_TYPE'],
    ['a valid body on an off slot', { body: { kind: 'agent.note', source: 'tester', data: { a: 1 } } }, 503, 'ABX_ERR_ADAPTER_OFF'],
  ];
  for (const [what, init, status, code] of cases) {
    const r = await box.api('/v1/events', { method: 'POST', ...init });
    t.equal(r.status, status, `${what}: ${status}`);
    t.equal(r.json['error'], code, `${what}: ${code}`);
    t.type(r.json['message'], 'string');
  }
  const notFound = await box.api('/v1/nothing-here');
  t.same(notFound.json, { error: 'ABX_ERR_NOT_FOUND', message: 'no route GET /v1/nothing-here' });
});

t.test('mutating routes are rate limited with a 429 in the same shape; reads are not', async (t) => {
  const box = await startTestServer({ limits: { max: 3, timeWindowMs: 60_000 } });
  t.teardown(() => box.close());
  for (let i = 0; i < 3; i++) t.equal((await box.api('/v1/events', { body: { kind: 'a.b' } })).status, 503);
  const limited = await box.api('/v1/events', { body: { kind: 'a.b' } });
  t.equal(limited.status, 429);
  t.equal(limited.json['error'], 'ABX_ERR_RATE_LIMITED');
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After is set');
  for (let i = 0; i < 5; i++) t.equal((await box.api('/v1/meta')).status, 200);
});

t.test('requests carry an id: a sane incoming X-Request-Id is kept, anything else replaced', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  t.equal((await box.api('/livez', { auth: false, headers: { 'x-request-id': 'trace-abc.123' } })).headers.get('x-request-id'), 'trace-abc.123');
  const replaced = (await box.api('/livez', { auth: false, headers: { 'x-request-id': 'bad id with spaces' } })).headers.get('x-request-id');
  t.match(replaced, /^[0-9a-f]{8}-[0-9a-z]+$/, 'a process prefix and a counter');
  const next = (await box.api('/livez', { auth: false })).headers.get('x-request-id');
  t.not(next, replaced, 'each request gets its own id');
});

t.test('schemas are compiled with JSON Schema 2020-12', async (t) => {
  const app = Fastify();
  registerAjv2020(app);
  registerErrorHandling(app);
  // prefixItems exists only in 2020-12: a draft-07 validator would not enforce it.
  app.post('/pair', { schema: { body: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], minItems: 2, items: false } } }, async () => ({
    ok: true,
  }));
  t.teardown(() => app.close());
  t.equal((await app.inject({ method: 'POST', url: '/pair', payload: ['a', 1] })).statusCode, 200);
  const bad = await app.inject({ method: 'POST', url: '/pair', payload: [1, 'a'] });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error, 'ABX_ERR_VALIDATION');
  t.equal((await app.inject({ method: 'POST', url: '/pair', payload: ['a', 1, 2] })).statusCode, 400, 'items: false closes the tuple');
});

t.test('errorResponse maps any error to a table code and hides internals of 5xx', async (t) => {
  t.same(errorResponse(new Error('ECONNREFUSED 10.0.0.7:5432')).body, {
    error: 'ABX_ERR_INTERNAL',
    message: 'internal error; see the API log for this request id',
  });
  t.equal(errorResponse(new Error('boom')).status, 500);
  t.equal(errorResponse(Object.assign(new SyntaxError('bad'), { statusCode: 400 })).body.error, 'ABX_ERR_MALFORMED_BODY');
  t.equal(errorResponse(Object.assign(new Error('gone'), { statusCode: 404 })).body.error, 'ABX_ERR_NOT_FOUND');
  t.equal(errorResponse(Object.assign(new Error('big'), { statusCode: 413 })).body.error, 'ABX_ERR_BODY_TOO_LARGE');
  t.equal(errorResponse(Object.assign(new Error('type'), { statusCode: 415 })).body.error, 'ABX_ERR_UNSUPPORTED_MEDIA_TYPE');
  t.same(errorResponse(Object.assign(new Error('odd header'), { statusCode: 431 })), {
    status: 400,
    body: { error: 'ABX_ERR_BAD_REQUEST', message: 'odd header' },
    headers: {},
  });
});

// Dashboard sessions over real HTTP: sign-in (key and NIP-98), the cookie, CSRF and Origin on mutations, sign-out, expiry.
import t from 'tap';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import { payloadHash } from '../../management-api/src/mesh/nip98.js';
import { startTestServer, waitFor } from './support/harness.js';
import { asBrowser, makeUiFixture, signIn } from './support/dashboard.js';

const BEADS = '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\n';

t.test('sign-in with the key sets a locked-down session cookie; a wrong key, a missing or foreign Origin are refused', async (t) => {
  const ui = await makeUiFixture();
  const box = await startTestServer({ toml: BEADS, ui: { root: ui.root } });
  t.teardown(async () => {
    await box.close();
    await ui.cleanup();
  });
  const b = await signIn(box);
  t.match(b.setCookie, /^agentbox_session=[A-Za-z0-9_-]{43};/, '32 random bytes, base64url');
  for (const attr of [/; HttpOnly/i, /; SameSite=Strict/i, /; Path=\//, /; Max-Age=28800/]) t.match(b.setCookie, attr);
  t.notMatch(b.setCookie, /Secure/, 'no Secure attribute on plain http');
  t.same(Object.keys(b.body).sort(), ['csrfToken', 'expiresAt', 'via']);
  t.equal(b.body['via'], 'api-key');
  t.ok(Math.abs(Date.parse(b.body['expiresAt'] as string) - Date.now() - 8 * 3600_000) < 60_000, 'expires in 8 h');
  t.notMatch(JSON.stringify(b.body), box.key, 'the key is not echoed');

  const post = (headers: Record<string, string>, body: unknown) =>
    fetch(`${box.server.apiUrl}/ui/session`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const wrong = await post({ origin: b.origin }, { apiKey: 'x'.repeat(43) });
  t.equal(wrong.status, 401);
  t.same(await wrong.json(), { error: 'ABX_ERR_AUTH_INVALID', message: 'that is not the box API key (<state>/secrets/api-key)' });
  t.equal(wrong.headers.get('set-cookie'), null, 'no cookie for a wrong key');
  t.match(await (await post({ origin: b.origin }, {})).json(), { error: 'ABX_ERR_AUTH_REQUIRED' });
  const noOrigin = await post({}, { apiKey: box.key });
  t.equal(noOrigin.status, 403);
  t.match(await noOrigin.json(), { error: 'ABX_ERR_CSRF', message: /Origin header/ });
  const foreign = await post({ origin: 'http://evil.example' }, { apiKey: box.key });
  t.equal(foreign.status, 403);
  t.match(await foreign.json(), { error: 'ABX_ERR_CSRF', message: /evil\.example/ });
  const port = new URL(box.server.apiUrl).port;
  t.equal((await post({ origin: `http://127.0.0.1:${Number(port) + 1}` }, { apiKey: box.key })).status, 403, 'another port is another origin');
  t.equal((await post({ origin: `https://127.0.0.1:${port}` }, { apiKey: box.key })).status, 403, 'another scheme is another origin');

  const current = await fetch(`${box.server.apiUrl}/ui/session`, { headers: { cookie: b.cookie } });
  t.equal(current.status, 200);
  t.same(await current.json(), b.body, 'GET /ui/session answers the same session');
  t.equal(current.headers.get('cache-control'), 'no-store');
  const anonymous = await fetch(`${box.server.apiUrl}/ui/session`);
  t.equal(anonymous.status, 401);
  t.match(await anonymous.json(), { error: 'ABX_ERR_AUTH_REQUIRED' });

  const text = await (await fetch(box.server.metricsUrl)).text();
  t.match(text, /agentbox_dashboard_sign_ins_total\{result="ok",via="api-key"\} 1/);
  t.match(text, /agentbox_dashboard_sign_ins_total\{result="invalid",via="api-key"\} 1/);
  t.match(text, /agentbox_dashboard_sign_ins_total\{result="origin",via="none"\} 4/);
  t.notMatch(box.logs.text(), box.key, 'the key is never logged');
  t.notMatch(box.logs.text(), b.cookie.split('=')[1]!, 'the cookie is never logged');
});

t.test('the cookie authenticates /v1 routes; mutations need the Origin and the CSRF token; sign-out revokes it', async (t) => {
  const box = await startTestServer({ toml: BEADS });
  t.teardown(() => box.close());
  const b = await signIn(box);
  t.equal((await asBrowser(box, b, '/v1/meta')).status, 200, 'GET with the cookie alone');
  const bead = { title: 'from the dashboard' };

  const noToken = await asBrowser(box, b, '/v1/beads', { method: 'POST', body: bead, csrf: false });
  t.equal(noToken.status, 403);
  t.match(noToken.json, { error: 'ABX_ERR_CSRF', message: /Origin/ });
  const badToken = await asBrowser(box, b, '/v1/beads', { method: 'POST', body: bead, token: 'x'.repeat(43) });
  t.equal(badToken.status, 403);
  t.match(badToken.json, { error: 'ABX_ERR_CSRF', message: /x-csrf-token/ });
  const foreign = await asBrowser(box, b, '/v1/beads', { method: 'POST', body: bead, origin: 'http://evil.example' });
  t.equal(foreign.status, 403);
  t.match(foreign.json, { error: 'ABX_ERR_CSRF' });
  t.same((await box.api('/v1/beads')).json['items'], [], 'nothing was created by a refused request');
  const ok = await asBrowser(box, b, '/v1/beads', { method: 'POST', body: bead });
  t.equal(ok.status, 201);
  t.match(ok.json, { bead: { title: 'from the dashboard' } });

  t.equal((await fetch(`${box.server.apiUrl}/v1/meta`)).status, 401, 'no credential at all');
  t.equal((await fetch(`${box.server.apiUrl}/v1/meta`, { headers: { cookie: 'other=1' } })).status, 401, 'a cookie that is not the session');
  const unknown = await fetch(`${box.server.apiUrl}/v1/meta`, { headers: { cookie: `agentbox_session=${'A'.repeat(43)}` } });
  t.equal(unknown.status, 401);
  t.match(await unknown.json(), { error: 'ABX_ERR_AUTH_INVALID', message: /sign in again/ });
  t.equal((await box.api('/v1/meta', { headers: { cookie: b.cookie } })).status, 200, 'the bearer key with a cookie still works');
  t.equal((await box.api('/v1/meta', { auth: 'wrong', headers: { cookie: b.cookie } })).status, 401, 'a wrong key is not rescued by the cookie');

  const refusedOut = await fetch(`${box.server.apiUrl}/ui/session`, { method: 'DELETE', headers: { cookie: b.cookie, origin: b.origin } });
  t.equal(refusedOut.status, 403, 'sign-out needs the CSRF token too');
  const out = await fetch(`${box.server.apiUrl}/ui/session`, {
    method: 'DELETE',
    headers: { cookie: b.cookie, origin: b.origin, 'x-csrf-token': b.csrfToken },
  });
  t.equal(out.status, 204);
  t.match(out.headers.get('set-cookie') ?? '', /^agentbox_session=;.*Expires=Thu, 01 Jan 1970/i, 'the cookie is cleared');
  const after = await asBrowser(box, b, '/v1/meta');
  t.equal(after.status, 401, 'the revoked cookie is refused');
  t.match(after.json, { error: 'ABX_ERR_AUTH_INVALID' });
  t.equal((await fetch(`${box.server.apiUrl}/ui/session`, { headers: { cookie: b.cookie } })).status, 401);
});

t.test('an expired session is refused', async (t) => {
  let offset = 0;
  const box = await startTestServer({ toml: BEADS, clock: () => new Date(Date.now() + offset) });
  t.teardown(() => box.close());
  const b = await signIn(box);
  offset = 8 * 3600_000 - 60_000;
  t.equal((await asBrowser(box, b, '/v1/meta')).status, 200, 'a minute before expiry');
  offset = 8 * 3600_000 + 1_000;
  const expired = await asBrowser(box, b, '/v1/meta');
  t.equal(expired.status, 401);
  t.match(expired.json, { error: 'ABX_ERR_AUTH_INVALID', message: /expired/ });
});

t.test('NIP-98 sign-in where operators are listed; refused where they are not', async (t) => {
  const operator = generateSecretKey();
  const toml = `${BEADS}[mesh]\noperator_pubkeys = ["${getPublicKey(operator)}"]\n`;
  const box = await startTestServer({ toml });
  t.teardown(() => box.close());
  const url = `${box.server.apiUrl}/ui/session`;
  const origin = new URL(url).origin;
  const signed = async (key: Uint8Array, body: string) => {
    const template: EventTemplate = {
      kind: 27235,
      created_at: Math.floor(Date.now() / 1000),
      content: '',
      tags: [
        ['u', url],
        ['method', 'POST'],
        ['payload', payloadHash(body)],
      ],
    };
    return `Nostr ${Buffer.from(JSON.stringify(finalizeEvent(template, key))).toString('base64')}`;
  };
  const res = await fetch(url, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', authorization: await signed(operator, '{}') },
    body: '{}',
  });
  t.equal(res.status, 201);
  t.match(await res.json(), { via: 'nip98', csrfToken: String });
  const cookie = (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  t.equal((await fetch(`${box.server.apiUrl}/v1/meta`, { headers: { cookie } })).status, 200);

  const stranger = await fetch(url, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', authorization: await signed(generateSecretKey(), '{}') },
    body: '{}',
  });
  t.equal(stranger.status, 401, 'a key not listed');
  const tampered = await fetch(url, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json', authorization: await signed(operator, '{}') },
    body: JSON.stringify({ apiKey: 'x' }),
  });
  t.equal(tampered.status, 401, 'a body other than the signed one');
  await waitFor('the sign-in metric', async () =>
    /agentbox_dashboard_sign_ins_total\{result="ok",via="nip98"\} 1/.test(await (await fetch(box.server.metricsUrl)).text()),
  );

  const plain = await startTestServer({ toml: BEADS });
  t.teardown(() => plain.close());
  const off = await fetch(`${plain.server.apiUrl}/ui/session`, {
    method: 'POST',
    headers: { origin: new URL(plain.server.apiUrl).origin, 'content-type': 'application/json', authorization: await signed(operator, '{}') },
    body: '{}',
  });
  t.equal(off.status, 401);
  t.match(await off.json(), { error: 'ABX_ERR_AUTH_INVALID', message: /NIP-98 sign-in is off/ });
});

t.test('sign-in is rate limited', async (t) => {
  const box = await startTestServer({ toml: BEADS });
  t.teardown(() => box.close());
  const origin = new URL(box.server.apiUrl).origin;
  const statuses: number[] = [];
  for (let i = 0; i < 31; i++)
    statuses.push(
      (await fetch(`${box.server.apiUrl}/ui/session`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{"apiKey":"wrong"}' }))
        .status,
    );
  t.same(statuses.slice(0, 30), Array(30).fill(401));
  t.equal(statuses[30], 429);
});

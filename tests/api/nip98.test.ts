// NIP-98 auth against the real API: listed keys may call any route with a signed request; forged,
// expired, replayed, wrong-URL, wrong-method, wrong-body tokens and unlisted keys get 401.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import { npubEncode, nsecEncode } from 'nostr-tools/nip19';
import { hexToBytes } from 'nostr-tools/utils';
import { BoxIdentity } from '../../management-api/src/mesh/identity.js';
import { nip98Header, payloadHash } from '../../management-api/src/mesh/nip98.js';
import { ALL_OFF, startTestServer } from './support/harness.js';

const operator = generateSecretKey();
const host = generateSecretKey();
const stranger = generateSecretKey();
const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n[mesh]\noperator_pubkeys = ["${npubEncode(getPublicKey(operator))}"]\nhost_pubkey = "${getPublicKey(host)}"\n`;

const now = (): number => Math.floor(Date.now() / 1000);
const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64');

/** A NIP-98 header signed by `sk`; `edit` changes the template before signing. */
function token(sk: Uint8Array, url: string, method: string, body?: string, edit: (e: EventTemplate) => void = () => {}): string {
  const template: EventTemplate = {
    kind: 27235,
    created_at: now(),
    content: '',
    tags: [
      ['u', url],
      ['method', method],
    ],
  };
  if (body !== undefined) template.tags.push(['payload', payloadHash(body)]);
  edit(template);
  return `Nostr ${b64(finalizeEvent(template, sk))}`;
}

t.test('NIP-98 signed requests', async (t) => {
  const box = await startTestServer({ toml });
  t.teardown(() => box.close());
  const base = box.server.apiUrl;
  const call = (pathname: string, authorization: string, init: { method?: string; body?: string } = {}) =>
    box.api(pathname, {
      auth: false,
      headers: { authorization },
      ...(init.method ? { method: init.method } : {}),
      ...(init.body !== undefined ? { rawBody: init.body } : {}),
    });
  const body = JSON.stringify({ kind: 'test.nip98', data: { n: 1 } });

  t.equal((await call('/v1/events', token(operator, `${base}/v1/events`, 'GET'))).status, 200, 'a GET signed by an operator (listed as npub)');
  t.equal((await call('/v1/events', token(host, `${base}/v1/events`, 'GET'))).status, 200, 'a GET signed by the mesh host (listed as hex)');
  const posted = await call('/v1/events', token(operator, `${base}/v1/events`, 'POST', body), { body });
  t.equal(posted.status, 201, 'a POST whose payload tag is the sha256 of its body');
  t.match(posted.json, { event: { kind: 'test.nip98' } });

  // A body streamed in many chunks is hashed as received.
  const big = JSON.stringify({ kind: 'test.nip98.big', data: { blob: 'x'.repeat(300_000) } });
  t.equal((await call('/v1/events', token(operator, `${base}/v1/events`, 'POST', big), { body: big })).status, 201, 'a 300 kB body');

  // The library's own signer (used by the box's outgoing calls) produces accepted headers.
  const signer = new BoxIdentity(operator);
  t.equal((await call('/v1/events', await nip98Header(signer, `${base}/v1/events`, 'POST', body), { body })).status, 201, 'nip98Header');

  const refused = async (what: string, authorization: string, init: { path?: string; method?: string; body?: string }, reason: RegExp) => {
    const r = await call(init.path ?? '/v1/events', authorization, init);
    t.equal(r.status, 401, `${what}: 401`);
    t.match(r.json, { error: 'ABX_ERR_AUTH_INVALID', message: reason }, what);
    return r;
  };
  const r = await refused(
    'an unlisted key with a valid signature',
    token(stranger, `${base}/v1/events`, 'GET'),
    {},
    /is not allowed: list it in mesh.operator_pubkeys/,
  );
  t.match(r.headers.get('www-authenticate'), /^Nostr/);

  const forged = JSON.parse(Buffer.from(token(operator, `${base}/v1/events`, 'GET').slice(6), 'base64').toString()) as Record<string, unknown>;
  forged['tags'] = [
    ['u', `${base}/v1/beads`],
    ['method', 'GET'],
  ];
  await refused('a signed event with its tags changed', `Nostr ${b64(forged)}`, { path: '/v1/beads' }, /wrong id or signature/);
  const impostor = JSON.parse(Buffer.from(token(stranger, `${base}/v1/events`, 'GET').slice(6), 'base64').toString()) as Record<string, unknown>;
  impostor['pubkey'] = getPublicKey(operator);
  await refused("another key's signature under an operator's pubkey", `Nostr ${b64(impostor)}`, {}, /wrong id or signature/);
  await refused(
    'an expired token',
    token(operator, `${base}/v1/events`, 'GET', undefined, (e) => void (e.created_at -= 120)),
    {},
    /more than 60 s from the server's clock/,
  );
  await refused(
    'a token from the future',
    token(operator, `${base}/v1/events`, 'GET', undefined, (e) => void (e.created_at += 120)),
    {},
    /more than 60 s/,
  );
  await refused(
    'another kind',
    token(operator, `${base}/v1/events`, 'GET', undefined, (e) => void (e.kind = 1)),
    {},
    /kind 1, not 27235/,
  );
  await refused('another path', token(operator, `${base}/v1/beads`, 'GET'), {}, /u tag does not match the request URL/);
  await refused('another query', token(operator, `${base}/v1/events?limit=1`, 'GET'), {}, /u tag does not match/);
  await refused('another host name', token(operator, `${base.replace('127.0.0.1', 'localhost')}/v1/events`, 'GET'), {}, /u tag does not match/);
  await refused('another method', token(operator, `${base}/v1/events`, 'GET'), { method: 'POST', body }, /method tag does not match POST/);
  await refused(
    'another body',
    token(operator, `${base}/v1/events`, 'POST', JSON.stringify({ kind: 'test.other' })),
    { body },
    /payload tag does not match the sha256 of the request body/,
  );
  await refused('a body without a payload tag', token(operator, `${base}/v1/events`, 'POST'), { body }, /has a body but the Nostr token has no payload tag/);
  await refused('a token that is not base64 JSON', 'Nostr bm90IGpzb24=', {}, /not base64 of a JSON event/);

  const once = token(operator, `${base}/v1/events`, 'GET');
  t.equal((await call('/v1/events', once)).status, 200, 'first use');
  await refused('the same token again', once, {}, /already used/);

  const listed = await box.api('/v1/events?kind=test.nip98.big');
  t.equal(listed.status, 200, 'the bearer key still works beside NIP-98');
  t.equal((listed.json['items'] as unknown[]).length, 1, 'refused requests wrote nothing');

  // Rejections are logged with their reason; no secret reaches the logs.
  t.ok(box.logs.events('AuthRejected').some((e) => e['scheme'] === 'nostr' && e['reason'] === 'replayed'));
  const identitySecret = (await readFile(box.paths.identityKeyFile, 'utf8')).trim();
  const text = box.logs.text();
  for (const secret of [identitySecret, nsecEncode(hexToBytes(identitySecret)), once.slice(6)])
    t.notOk(text.includes(secret), `"${secret.slice(0, 8)}…" is not in the logs`);
});

t.test('without listed keys a Nostr header is a wrong API key', async (t) => {
  const box = await startTestServer({ toml: ALL_OFF });
  t.teardown(() => box.close());
  const r = await box.api('/v1/meta', { auth: false, headers: { authorization: token(operator, `${box.server.apiUrl}/v1/meta`, 'GET') } });
  t.equal(r.status, 401);
  t.match(r.json, { error: 'ABX_ERR_AUTH_INVALID', message: /does not carry the box API key/ });
  t.equal((await box.api('/ready', { auth: false })).status === 401, false, 'probes stay public');
});

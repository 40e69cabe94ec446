// The NIP-98 verifier with an injected clock: the inclusive ±60 s window, replays remembered until
// their window ends, a full replay cache refusing rather than forgetting, the manifest allowlist.
import t from 'tap';
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { Nip98Verifier, nip98Allowlist, payloadHash } from '../../../management-api/src/mesh/nip98.js';
import { ReplayCache } from '../../../management-api/src/mesh/replay-cache.js';
import { BoxIdentity } from '../../../management-api/src/mesh/identity.js';
import { pubkeyToHex } from '../../../management-api/src/grammar/pubkey.js';

const sk = generateSecretKey();
const pk = getPublicKey(sk);
const url = 'http://box.example:8080/v1/beads';
const T0 = 1_900_000_000;
const tokenAt = (createdAt: number, tags: string[][] = []): string =>
  Buffer.from(JSON.stringify(finalizeEvent({ kind: 27235, created_at: createdAt, content: '', tags: [['u', url], ['method', 'post'], ...tags] }, sk))).toString(
    'base64',
  );

t.test('the window is ±60 s inclusive, by the injected clock', async (t) => {
  let now = T0;
  const v = new Nip98Verifier({ allowed: new Set([pk]), now: () => now });
  t.match(await v.check(tokenAt(T0 - 60), url, 'POST'), { ok: true }, '60 s old');
  t.match(await v.check(tokenAt(T0 + 60), url, 'POST'), { ok: true }, '60 s ahead');
  t.match(await v.check(tokenAt(T0 - 61), url, 'POST'), { ok: false, reason: 'expired' });
  t.match(await v.check(tokenAt(T0 + 61), url, 'POST'), { ok: false, reason: 'expired' });
  now = T0 + 1000;
  t.match(await v.check(tokenAt(T0), url, 'POST'), { ok: false, reason: 'expired' }, 'time moves on');
});

t.test('a replay is refused while its token could pass, a refused token is not spent', async (t) => {
  let now = T0;
  const v = new Nip98Verifier({ allowed: new Set([pk]), now: () => now });
  const tok = tokenAt(T0);
  t.match(await v.check(tok, url, 'GET'), { ok: false, reason: 'method' });
  t.match(await v.check(tok, url, 'POST'), { ok: true }, 'the refusal above did not spend it');
  t.match(await v.check(tok, url, 'POST'), { ok: false, reason: 'replayed' });
  now = T0 + 59;
  t.match(await v.check(tok, url, 'POST'), { ok: false, reason: 'replayed' });
  const event = JSON.parse(Buffer.from(tok, 'base64').toString()) as { sig: string };
  const upper = Buffer.from(JSON.stringify({ ...event, sig: event.sig.toUpperCase() })).toString('base64');
  t.match(await v.check(upper, url, 'POST'), { ok: false, reason: 'malformed' }, 'the same signature spelled in upper case is no new token');
  now = T0 + 61;
  t.match(await v.check(tok, url, 'POST'), { ok: false, reason: 'expired' }, 'then the window closes it');
});

t.test('the payload tag: required with a body, equal to the sha256 of the bytes', async (t) => {
  const v = new Nip98Verifier({ allowed: new Set([pk]), now: () => T0 });
  const body = '{"a":1}';
  const withTag = await v.check(tokenAt(T0, [['payload', payloadHash(body)]]), url, 'POST');
  const withoutTag = await v.check(tokenAt(T0), url, 'POST');
  if (!withTag.ok || !withoutTag.ok) throw new Error('setup');
  t.match(v.checkPayload(withTag.event, payloadHash(body), body.length), { ok: true });
  t.match(v.checkPayload(withTag.event, payloadHash('{"a": 1}'), 8), { ok: false, reason: 'payload' }, 'the same JSON spelled differently is another body');
  t.match(v.checkPayload(withTag.event, undefined, 0), { ok: false, reason: 'payload' }, 'a tag but no body');
  t.match(v.checkPayload(withoutTag.event, undefined, 0), { ok: true }, 'no body, no tag');
  t.match(v.checkPayload(withoutTag.event, payloadHash(body), body.length), { ok: false, reason: 'payload' });
});

t.test('a full replay cache refuses new tokens instead of forgetting live ones', async (t) => {
  const cache = new ReplayCache(2);
  t.equal(cache.admit('a', 100, 50), 'fresh');
  t.equal(cache.admit('b', 100, 50), 'fresh');
  t.equal(cache.admit('c', 100, 50), 'full');
  t.equal(cache.admit('a', 100, 60), 'replayed');
  t.equal(cache.admit('c', 200, 101), 'fresh', 'expired entries are swept to make room');
  t.equal(cache.size, 1);
  const v = new Nip98Verifier({ allowed: new Set([pk]), now: () => T0, replayCapacity: 1 });
  t.match(await v.check(tokenAt(T0), url, 'POST'), { ok: true });
  t.match(await v.check(tokenAt(T0), url, 'POST'), { ok: false, reason: 'replay-cache-full' });
});

t.test('the allowlist takes npub or hex; the identity never serialises its secret', async (t) => {
  const other = getPublicKey(generateSecretKey());
  t.same([...nip98Allowlist({ operator_pubkeys: [npubEncode(pk)], host_pubkey: other })], [pk, other]);
  t.same([...nip98Allowlist({ operator_pubkeys: [], host_pubkey: '' })], []);
  const bad = npubEncode(pk).slice(0, -1) + (npubEncode(pk).endsWith('q') ? 'p' : 'q');
  t.throws(() => nip98Allowlist({ operator_pubkeys: [bad], host_pubkey: '' }), /mesh.operator_pubkeys\[0\] = .* is not a valid npub/);
  t.equal(pubkeyToHex('nsec1abc'), undefined);
  const id = new BoxIdentity(sk);
  const secretHex = Buffer.from(sk).toString('hex');
  const { inspect } = await import('node:util');
  t.notMatch(JSON.stringify(id) + inspect(id, { showHidden: true, depth: 5 }), secretHex);
  t.same(JSON.parse(JSON.stringify(id)), { pubkey: pk, npub: npubEncode(pk), did: `did:nostr:${pk}` });
});

// The dashboard's session store: hashed keys, expiry by the injected clock, revocation and its bound.
import t from 'tap';
import { SessionStore, sameSecret, sessionView } from '../../management-api/src/dashboard/session-store.js';

t.test('sessions expire, are revoked, and the oldest make room past the bound', async (t) => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const store = new SessionStore({ clock: () => new Date(now), ttlMs: 1_000, max: 2 });
  const a = store.create('api-key');
  t.match(a.cookie, /^[A-Za-z0-9_-]{43}$/);
  t.same(sessionView(a.session), { csrfToken: a.session.csrfToken, expiresAt: '2026-01-01T00:00:01.000Z', via: 'api-key' });
  t.equal(store.lookup(a.cookie), a.session);
  t.equal(store.lookup(a.cookie.slice(1)), undefined, 'another value is no session');
  const b = store.create('nip98');
  const c = store.create('api-key');
  t.equal(store.size, 2);
  t.equal(store.lookup(a.cookie), undefined, 'the oldest made room');
  t.equal(store.lookup(b.cookie), b.session);
  t.ok(store.revoke(b.cookie));
  t.notOk(store.revoke(b.cookie), 'revoked once');
  t.equal(store.lookup(b.cookie), undefined);
  now += 1_000;
  t.equal(store.lookup(c.cookie), undefined, 'expired at expiresAt');
  store.create('api-key');
  now += 1_000;
  store.create('api-key');
  t.equal(store.size, 1, 'expired sessions are swept on create');
});

t.test('secrets compare equal only when equal, whatever their lengths', async (t) => {
  t.ok(sameSecret('abc', 'abc'));
  t.notOk(sameSecret('abc', 'abd'));
  t.notOk(sameSecret('abc', 'abcd'));
  t.notOk(sameSecret('', 'a'));
});

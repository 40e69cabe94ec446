// Host mode against the real API: members register, heartbeat and deregister with NIP-98 signed by an allowed key;
// every kind of bad token is refused; a member silent for three intervals is evicted (injected clock), gets 410, registers again.
import t from 'tap';
import { existsSync } from 'node:fs';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { sqliteRegistryFile } from '../../management-api/src/mesh/host/open-registry.js';
import { ALL_OFF, startTestServer, waitFor } from './support/harness.js';
import { beatBody, registrationBody, send, TestMember } from './support/mesh-member.js';

const alice = new TestMember();
const bob = new TestMember();
const stranger = new TestMember();
const operator = generateSecretKey();
const toml = `${ALL_OFF}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${alice.identity.npub}", "${bob.identity.pubkey}"]\noperator_pubkeys = ["${npubEncode(getPublicKey(operator))}"]\n`;

t.test('host mode', async (t) => {
  // The registry's clock: moved forward by the test to pass eviction deadlines without waiting.
  let offsetMs = 0;
  const box = await startTestServer({ toml, clock: () => new Date(Date.now() + offsetMs) });
  t.teardown(() => box.close());
  const base = box.server.apiUrl;
  t.ok(existsSync(sqliteRegistryFile(box.paths)), 'the SQLite registry is on the state volume');

  const reg = await alice.register(base);
  t.equal(reg.status, 201, 'an allowed key (listed as npub) registers');
  const sessionId = reg.json['session_id'] as string;
  t.match(reg.json, {
    session_id: /^[0-9a-f-]{36}$/,
    heartbeat_interval_sec: 5,
    endpoints: {
      heartbeat: `${base}/v1/mesh/sessions/${sessionId}/heartbeat`,
      deregister: `${base}/v1/mesh/sessions/${sessionId}`,
      members: `${base}/v1/mesh/members`,
    },
  });
  t.same(reg.json['replicas'], [base], 'the replica announces itself');
  const endpoints = reg.json['endpoints'] as Record<string, string>;
  t.equal((await bob.register(base, { name: 'bobs-box' })).status, 201, 'an allowed key listed as hex registers, with its box name');

  const listed = await box.api('/v1/mesh/members');
  t.equal(listed.status, 200);
  const members = listed.json['members'] as Array<Record<string, unknown>>;
  t.equal(members.length, 2);
  t.match(
    members.find((m) => m['pubkey'] === alice.identity.pubkey),
    {
      npub: alice.identity.npub,
      state: 'registered',
      api_endpoint: 'http://127.0.0.1:1/',
      capacity: { agents_running: 2 },
      health: null,
      registered_at: String,
      last_heartbeat_at: String,
      adapters: { beads: 'off' },
      name: null,
    },
  );
  t.match(
    members.find((m) => m['pubkey'] === bob.identity.pubkey),
    { name: 'bobs-box' },
    'the box name a member registered with is listed',
  );
  t.equal((await box.api('/v1/mesh/members', { auth: false })).status, 401, 'the member list needs the key');
  // The counts are read when asked, not left as of the last sweep (the next one is 5 s away).
  t.match(
    (await box.api('/health', { auth: false })).json['federation'],
    { members: { registered: 2, evicted: 0 } },
    '/health counts the members just registered',
  );
  t.match((await box.api('/v1/meta')).json['federation'], { members: { registered: 2, evicted: 0 } }, 'and so does /v1/meta');

  t.test('heartbeats', async (t) => {
    const beat = await alice.call('POST', endpoints.heartbeat!, beatBody(7));
    t.equal(beat.status, 200);
    t.match(
      beat.json,
      { heartbeat_interval_sec: 5, witness: { outcome: 'none', size: null, flagged: false } },
      'no checkpoint offered: the witness answers its state only',
    );
    const after = (await box.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>;
    t.match(
      after.find((m) => m['pubkey'] === alice.identity.pubkey),
      { health: { ready: true, status: 'ok' }, capacity: { agents_running: 7 } },
    );
    t.equal((await bob.call('POST', endpoints.heartbeat!, beatBody())).status, 410, "another member's session is not this key's: 410");
    t.equal(
      (await alice.call('POST', `${base}/v1/mesh/sessions/00000000-0000-4000-8000-000000000000/heartbeat`, beatBody())).status,
      410,
      'an unknown session: 410',
    );
    t.equal((await alice.call('POST', endpoints.heartbeat!, { health: { ready: 'yes' } })).status, 400, 'a malformed heartbeat body: 400');
  });

  t.test('refused tokens and keys', async (t) => {
    const url = `${base}/v1/register`;
    const body = JSON.stringify(registrationBody(alice.identity));
    const refused = async (what: string, authorization: string | undefined, status = 401, message?: RegExp, sent = body, at = url) => {
      const r = await send('POST', at, authorization, sent);
      t.equal(r.status, status, `${what}: ${status}`);
      if (message) t.match(r.json['message'], message, what);
    };
    await refused(
      'a valid signature from a key not in mesh.allowed_pubkeys',
      stranger.token(url, 'POST', JSON.stringify(registrationBody(stranger.identity))),
      401,
      /not allowed: list it in mesh.allowed_pubkeys/,
    );
    await refused(
      'an operator key (operators are not members)',
      `Nostr ${Buffer.from(
        JSON.stringify(
          (await import('nostr-tools/pure')).finalizeEvent(
            {
              kind: 27235,
              created_at: Math.floor(Date.now() / 1000),
              content: '',
              tags: [
                ['u', url],
                ['method', 'POST'],
                ['payload', (await import('../../management-api/src/mesh/nip98.js')).payloadHash(body)],
              ],
            },
            operator,
          ),
        ),
      ).toString('base64')}`,
      401,
      /not allowed/,
    );
    await refused('the bearer API key', `Bearer ${box.key}`, 401, /NIP-98 signed request/);
    await refused('no authorization', undefined, 401, /NIP-98/);
    const forged = JSON.parse(Buffer.from(alice.token(url, 'POST', body).slice(6), 'base64').toString()) as Record<string, unknown>;
    forged['created_at'] = (forged['created_at'] as number) + 1;
    await refused('a forged token (changed after signing)', `Nostr ${Buffer.from(JSON.stringify(forged)).toString('base64')}`, 401, /wrong id or signature/);
    await refused(
      'an expired token',
      alice.token(url, 'POST', body, (e) => void (e.created_at -= 120)),
      401,
      /more than 60 s/,
    );
    await refused('a token for another URL', alice.token(`${base}/v1/register?x=1`, 'POST', body), 401, /u tag does not match/);
    await refused(
      'a token for another body',
      alice.token(url, 'POST', JSON.stringify(registrationBody(alice.identity, { api_endpoint: 'http://evil/' }))),
      401,
      /payload tag does not match/,
    );
    const once = alice.token(url, 'POST', body);
    await refused('first use of a token', once, 201);
    await refused('the same token again (replayed)', once, 401, /already used/);
    const other = JSON.stringify(registrationBody(alice.identity, { pubkey: bob.identity.pubkey }));
    await refused('a body naming another key than the signer', alice.token(url, 'POST', other), 400, /must be the key that signed/, other);

    // The same checks guard the heartbeat.
    const fresh = await alice.register(base);
    const hb = (fresh.json['endpoints'] as Record<string, string>)['heartbeat']!;
    const beat = JSON.stringify(beatBody());
    await refused('heartbeat: forged', alice.token(hb, 'POST', beat).replace(/.{8}$/, 'AAAAAAA='), 401, undefined, beat, hb);
    await refused(
      'heartbeat: expired',
      alice.token(hb, 'POST', beat, (e) => void (e.created_at -= 61)),
      401,
      /more than 60 s/,
      beat,
      hb,
    );
    await refused('heartbeat: wrong URL', alice.token(hb.replace('/heartbeat', ''), 'POST', beat), 401, /u tag/, beat, hb);
    await refused('heartbeat: wrong body', alice.token(hb, 'POST', JSON.stringify(beatBody(9))), 401, /payload/, beat, hb);
    await refused('heartbeat: a key not allowed', stranger.token(hb, 'POST', beat), 401, /not allowed/, beat, hb);
    const ok = alice.token(hb, 'POST', beat);
    await refused('heartbeat: first use', ok, 200, undefined, beat, hb);
    await refused('heartbeat: replayed', ok, 401, /already used/, beat, hb);
  });

  t.test('eviction after three missed heartbeats, then 410, then registration again', async (t) => {
    const first = await bob.register(base);
    const hb = (first.json['endpoints'] as Record<string, string>)['heartbeat']!;
    offsetMs += 14_000;
    t.equal((await bob.call('POST', hb, beatBody())).status, 200, '14 s (under 3 × 5 s) after the last heartbeat: still a member');
    offsetMs += 15_500;
    t.equal((await bob.call('POST', hb, beatBody())).status, 410, '15.5 s after the last heartbeat: evicted, 410');
    t.match(
      (await box.api('/health', { auth: false })).json['federation'],
      { members: { registered: 0, evicted: 2 } },
      '/health counts the evictions (alice and bob fell silent) without waiting for a sweep',
    );
    const listed = (await box.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>;
    t.match(
      listed.find((m) => m['pubkey'] === bob.identity.pubkey),
      { state: 'evicted', evicted_at: String },
      'listed as evicted',
    );
    // The listing noticed the eviction before any sweep did: it is logged and counted all the same.
    t.ok(
      box.logs.events('MeshMemberEvicted').some((e) => e['pubkey'] === bob.identity.pubkey),
      'the eviction a listing noticed is logged',
    );
    t.match(await (await fetch(box.server.metricsUrl)).text(), /agentbox_mesh_host_evictions_total [1-9]/, 'and counted');
    const again = await bob.register(base);
    t.equal(again.status, 201, 'an evicted member registers again');
    t.not(again.json['session_id'], first.json['session_id'], 'under a new session');
    t.equal((await bob.call('POST', (again.json['endpoints'] as Record<string, string>)['heartbeat']!, beatBody())).status, 200);
    t.equal((await bob.call('POST', hb, beatBody())).status, 410, 'the old session stays gone');

    // The sweep evicts without a heartbeat arriving, and says so in /health and the metrics.
    offsetMs += 16_000;
    await box.server.app.agentbox.federation.host!.sweep();
    const health = await box.api('/health', { auth: false });
    t.match(health.json['federation'], { mode: 'host', registry: 'sqlite', heartbeatIntervalSec: 5, members: { registered: 0 } });
    const metrics = await (await fetch(box.server.metricsUrl)).text();
    t.match(metrics, /agentbox_mesh_host_evictions_total [1-9]/);
    t.match(metrics, /agentbox_mesh_host_requests_total\{call="heartbeat",outcome="gone"\} [1-9]/);
    t.ok(box.logs.events('MeshMemberEvicted').length >= 1, 'evictions are logged');
  });

  t.test('deregistration', async (t) => {
    const r = await alice.register(base);
    const ep = r.json['endpoints'] as Record<string, string>;
    t.equal((await alice.call('DELETE', ep['deregister']!)).status, 204);
    t.equal((await alice.call('POST', ep['heartbeat']!, beatBody())).status, 410, 'heartbeats after deregistration get 410');
    t.equal((await alice.call('DELETE', ep['deregister']!)).status, 410, 'a second deregistration: 410');
    const listed = (await box.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>;
    t.notOk(
      listed.some((m) => m['pubkey'] === alice.identity.pubkey),
      'a deregistered member is no longer listed',
    );
  });

  t.test('/v1/meta names the mode', async (t) => {
    t.match((await box.api('/v1/meta')).json['federation'], { mode: 'host', registry: 'sqlite' });
  });

  t.test('the OpenAPI document describes the member routes and their NIP-98 scheme', async (t) => {
    const doc = await box.api('/docs/json');
    t.equal(doc.status, 200);
    t.match(doc.json, {
      components: { securitySchemes: { nostr: { type: 'http', scheme: 'Nostr' } } },
      paths: { '/v1/register': { post: { security: [{ nostr: [] }] } } },
    });
  });
});

t.test('a standalone or client box has no member routes', async (t) => {
  const box = await startTestServer({ toml: ALL_OFF });
  t.teardown(() => box.close());
  t.equal((await alice.register(box.server.apiUrl)).status, 401, 'no route: the unknown URL needs the API key');
  t.equal((await box.api('/v1/register', { body: {} })).status, 404, 'with the key: not found');
  t.match((await box.api('/health', { auth: false })).json['federation'], { mode: 'standalone', state: 'disabled' });
  await waitFor('the metric', async () => /agentbox_mesh_client_state\{state="disabled"\} 1/.test(await (await fetch(box.server.metricsUrl)).text()));
});

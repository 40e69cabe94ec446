// A mesh of real processes: one host and two clients, each its own `agentbox up --local` box with its
// own root, identity and ports. Both clients register and heartbeat; the host restarted on its root
// keeps its registry (and with the registry lost the clients register again); a client killed hard
// is evicted after three missed heartbeats; a client stopped with SIGTERM deregisters at once; forged,
// expired, replayed, wrong-URL and wrong-body signatures are refused by the host process.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { waitFor } from '../helpers/wait.js';
import { sqliteRegistryFile } from '../../management-api/src/mesh/host/open-registry.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { apiKeyOf, identityOf, startLocalBox, type LocalBox } from './support/local-box.js';
import { beatBody, registrationBody, send, TestMember } from '../api/support/mesh-member.js';

/** The host's interval: the least rule E020 allows, so eviction (three intervals) takes 15-20 s. */
const INTERVAL_SEC = 5;
const ALL_OFF = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\ncritical = []\n`;

interface Member {
  pubkey: string;
  npub: string;
  state: string;
  api_endpoint: string;
  health: Record<string, unknown> | null;
  capacity: Record<string, number>;
  registered_at: string;
  last_heartbeat_at: string;
  evicted_at: string | null;
}
interface Federation {
  mode: string;
  state: string;
  host: string;
  sessionId: string | null;
  heartbeatIntervalSec: number | null;
  lastHeartbeatAt: string | null;
}

/**
 * Whether the box logs a matching event within 15 s. A log line travels API -> supervisord's log ->
 * `agentbox up`'s output -> the test's pipe, so it may arrive after the HTTP answer that showed its
 * effect: a test waits for it rather than reading the output once.
 */
async function logged(box: LocalBox, match: (e: ReturnType<LocalBox['events']>[number]) => boolean): Promise<boolean> {
  return waitFor('the event in the box output', () => box.events().some(match) || undefined, 15_000, 100).then(
    () => true,
    () => false,
  );
}

t.test('one host and two clients, each an `up --local` box', { timeout: 300_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-mesh-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const root = (name: string): string => path.join(work, name, '.agentbox');
  for (const name of ['host', 'alice', 'bob']) mkdirSync(path.join(work, name), { recursive: true });
  // As a user does: create the clients' keys first, so the host manifest can list them.
  const [aliceId, bobId] = await Promise.all([identityOf(root('alice')), identityOf(root('bob'))]);
  // The test's own member key (carol) for hand-made signed requests, and one the host does not list.
  const carol = new TestMember();
  const stranger = new TestMember();
  const ports = { host: [await freePort(), await freePort()], alice: [await freePort(), await freePort()], bob: [await freePort(), await freePort()] } as const;
  const hostUrl = `http://127.0.0.1:${ports.host[0]}`;
  const manifest = (name: 'host' | 'alice' | 'bob', mesh: string): string => {
    const file = path.join(work, name, 'agentbox.toml');
    writeFileSync(
      file,
      `[agentbox]\nname = "${name}"\n\n${ALL_OFF}\n[api]\nport = ${ports[name][0]}\n\n[observability]\nmetrics_port = ${ports[name][1]}\n\n[mesh]\n${mesh}`,
    );
    return file;
  };
  const files = {
    host: manifest(
      'host',
      `mode = "host"\nheartbeat_interval_sec = ${INTERVAL_SEC}\nallowed_pubkeys = ["${aliceId.npub}", "${bobId.pubkey}", "${carol.identity.npub}"]\n`,
    ),
    alice: manifest('alice', `mode = "client"\nhost_url = "${hostUrl}"\n`),
    bob: manifest('bob', `mode = "client"\nhost_url = "${hostUrl}"\n`),
  };
  let runs = 0;
  const boxes = new Set<LocalBox>();
  const start = (name: 'host' | 'alice' | 'bob'): LocalBox => {
    const box = startLocalBox({ manifestFile: files[name], root: root(name), apiPort: ports[name][0], logFile: path.join(work, `${name}-${++runs}.log`) });
    boxes.add(box);
    return box;
  };
  t.teardown(async () => {
    await Promise.all([...boxes].map((b) => b.killHard().catch(() => {})));
  });

  // The three boxes start together; a client up before its host backs off and registers when it answers.
  let host = start('host');
  const alice = start('alice');
  const bob = start('bob');
  await Promise.all([host.ready(), alice.ready(), bob.ready()]);

  const hostKey = apiKeyOf(root('host'));
  const members = async (): Promise<Member[]> => {
    const res = await fetch(`${hostUrl}/v1/mesh/members`, { headers: { authorization: `Bearer ${hostKey}` } });
    if (res.status !== 200) throw new Error(`GET /v1/mesh/members: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { members: Member[] }).members;
  };
  const find = (list: Member[], pubkey: string): Member | undefined => list.find((m) => m.pubkey === pubkey);
  const federation = async (box: LocalBox): Promise<Federation> =>
    ((await (await fetch(`${box.apiUrl}/health`)).json()) as { federation: Federation }).federation;

  const listed = await waitFor(
    'both clients registered and heartbeating',
    async () => {
      const list = await members();
      return [aliceId, bobId].every((id) => find(list, id.pubkey)?.health) ? list : undefined;
    },
    60_000,
    200,
  );
  for (const [id, box] of [
    [aliceId, alice],
    [bobId, bob],
  ] as const) {
    t.match(
      find(listed, id.pubkey),
      {
        npub: id.npub,
        state: 'registered',
        api_endpoint: box.apiUrl,
        health: { ready: true, status: 'ok' },
        capacity: { agents_running: 0, free_memory_bytes: Number },
        evicted_at: null,
      },
      `${id.npub.slice(0, 12)}… is listed healthy with its capacity`,
    );
    t.match(
      await federation(box),
      { mode: 'client', state: 'registered', host: hostUrl, sessionId: String, heartbeatIntervalSec: INTERVAL_SEC },
      'the client shows its federation state',
    );
  }

  t.test('the host restarted on its root keeps its registry; each client carries on as designed', async (t) => {
    const before = new Map([
      [aliceId.pubkey, await federation(alice)],
      [bobId.pubkey, await federation(bob)],
    ]);
    t.equal(await host.stop(), 0, 'the host stops on SIGTERM');
    const restartedAt = new Date().toISOString();
    host = start('host');
    await host.ready();
    t.ok(find(await members(), aliceId.pubkey), 'the members are still listed (the SQLite registry is on the state volume)');
    for (const [id, box] of [
      [aliceId, alice],
      [bobId, bob],
    ] as const) {
      const now = await waitFor(
        'a heartbeat accepted by the restarted host',
        async () => {
          const f = await federation(box);
          return f.state === 'registered' && f.lastHeartbeatAt && f.lastHeartbeatAt > restartedAt ? f : undefined;
        },
        60_000,
        200,
      );
      // A host back within three intervals of a member's last heartbeat still holds its session; past
      // that deadline the member's next heartbeat gets 410 and it registers again at once.
      const old = before.get(id.pubkey)!.sessionId;
      const gone = now.sessionId !== old;
      if (gone)
        t.ok(
          await logged(box, (e) => e.event === 'MeshSessionGone' && e['sessionId'] === old),
          'its session outlived by the restart: 410 logged, registered again under a new session',
        );
      else
        t.notOk(
          box.events().some((e) => e.event === 'MeshSessionGone' && e['sessionId'] === old),
          'the same session carries on, with no 410',
        );
      t.comment(`${id.npub.slice(0, 12)}…: ${gone ? 'registered again' : 'same session'} after a host restart of ${Date.now() - Date.parse(restartedAt)} ms`);
    }
  });

  t.test('the host restarted with its registry lost: 410, and the clients register again', async (t) => {
    const before = new Map([
      [aliceId.pubkey, (await federation(alice)).sessionId],
      [bobId.pubkey, (await federation(bob)).sessionId],
    ]);
    t.equal(await host.stop(), 0);
    const registry = sqliteRegistryFile(runtimePaths({ AGENTBOX_ROOT: root('host') }));
    for (const suffix of ['', '-wal', '-shm']) rmSync(registry + suffix, { force: true });
    host = start('host');
    await host.ready();
    for (const [id, box] of [
      [aliceId, alice],
      [bobId, bob],
    ] as const) {
      const now = await waitFor(
        'the client registered again',
        async () => {
          const f = await federation(box);
          return f.state === 'registered' && f.sessionId !== before.get(id.pubkey) ? f : undefined;
        },
        60_000,
        200,
      );
      t.match(now, { sessionId: String }, 'a new session');
      t.ok(await logged(box, (e) => e.event === 'MeshSessionGone' && e['sessionId'] === before.get(id.pubkey)), 'after its heartbeat got 410');
    }
    t.same(
      (await members()).map((m) => m.state),
      ['registered', 'registered'],
      'both listed again',
    );
  });

  t.test('a client stopped with SIGTERM deregisters at once; a client killed hard stops heartbeating', async (t) => {
    // alice first: her three intervals run while the rest of the file goes on.
    await alice.killHard();
    t.equal(await bob.stop(), 0, 'bob stops on SIGTERM');
    t.notOk(find(await members(), bobId.pubkey), 'bob is gone from the list as soon as his box has stopped');
    t.ok(
      bob.events().some((e) => e.event === 'MeshDeregistered'),
      'bob logged his deregistration',
    );
  });

  t.test('bad signatures are refused by the real host process', async (t) => {
    const url = `${hostUrl}/v1/register`;
    const body = JSON.stringify(registrationBody(carol.identity));
    const post = (authorization: string, at = url, sent = body) => send('POST', at, authorization, sent);
    const forged = JSON.parse(Buffer.from(carol.token(url, 'POST', body).slice('Nostr '.length), 'base64').toString()) as Record<string, unknown>;
    forged['content'] = 'changed after signing';
    t.match(
      await post(`Nostr ${Buffer.from(JSON.stringify(forged)).toString('base64')}`),
      { status: 401, json: { message: /wrong id or signature/ } },
      'forged',
    );
    t.match(await post(carol.token(url, 'POST', body, (e) => void (e.created_at -= 120))), { status: 401, json: { message: /more than 60 s/ } }, 'expired');
    t.match(
      await post(carol.token(`${hostUrl}/v1/register/`, 'POST', body)),
      { status: 401, json: { message: /u tag does not match/ } },
      'signed for another URL',
    );
    t.match(
      await post(carol.token(url, 'POST', JSON.stringify(registrationBody(carol.identity, { api_endpoint: 'http://127.0.0.1:2/' })))),
      { status: 401, json: { message: /payload tag does not match/ } },
      'signed for another body',
    );
    t.match(
      await post(stranger.token(url, 'POST', JSON.stringify(registrationBody(stranger.identity))), url, JSON.stringify(registrationBody(stranger.identity))),
      { status: 401, json: { message: /not allowed/ } },
      'a valid signature by a key not in mesh.allowed_pubkeys',
    );
    const once = carol.token(url, 'POST', body);
    t.equal((await post(once)).status, 201, 'the same request properly signed registers');
    t.match(await post(once), { status: 401, json: { message: /already used/ } }, 'replayed');

    // The same checks guard the heartbeat of a live session.
    const session = await carol.register(hostUrl);
    const hb = (session.json['endpoints'] as Record<string, string>)['heartbeat']!;
    const beat = JSON.stringify(beatBody());
    const tampered = carol.token(hb, 'POST', beat).replace(/.{8}$/, 'AAAAAAA=');
    t.equal((await post(tampered, hb, beat)).status, 401, 'heartbeat: forged');
    t.equal(
      (
        await post(
          carol.token(hb, 'POST', beat, (e) => void (e.created_at -= 61)),
          hb,
          beat,
        )
      ).status,
      401,
      'heartbeat: expired',
    );
    t.equal((await post(carol.token(`${hb}?again`, 'POST', beat), hb, beat)).status, 401, 'heartbeat: signed for another URL');
    t.equal((await post(carol.token(hb, 'POST', JSON.stringify(beatBody(3))), hb, beat)).status, 401, 'heartbeat: signed for another body');
    const beatOnce = carol.token(hb, 'POST', beat);
    t.equal((await post(beatOnce, hb, beat)).status, 200, 'heartbeat: properly signed');
    t.equal((await post(beatOnce, hb, beat)).status, 401, 'heartbeat: replayed');
    t.equal((await carol.call('DELETE', (session.json['endpoints'] as Record<string, string>)['deregister']!)).status, 204, 'deregistered');
  });

  t.test('the client killed hard is evicted after three missed heartbeats', async (t) => {
    // Every listing checks the deadlines, so polling it sees the eviction the moment it is due.
    const gone = await waitFor(
      'the host to evict alice',
      async () => {
        const m = find(await members(), aliceId.pubkey);
        return m?.state === 'evicted' ? m : undefined;
      },
      60_000,
      200,
    );
    t.match(gone, { state: 'evicted', evicted_at: String }, 'alice is listed as evicted');
    const silentMs = Date.parse(gone.evicted_at!) - Date.parse(gone.last_heartbeat_at);
    t.ok(silentMs > 3 * INTERVAL_SEC * 1000, `evicted only after three intervals without a heartbeat (${silentMs} ms)`);
    t.ok(await logged(host, (e) => e.event === 'MeshMemberEvicted' && e['pubkey'] === aliceId.pubkey), 'the host logged MeshMemberEvicted');
    const metrics = await (await fetch(`http://127.0.0.1:${ports.host[1]}/metrics`)).text();
    t.match(metrics, /agentbox_mesh_host_evictions_total [1-9]/, 'and counted it');
  });
});

// Client mode against a real host API: backoff while the host is down (readiness untouched), registration when it comes
// up, heartbeats with health and capacity, 410 after eviction → registration again, failover to the restarted host,
// deregistration on close; a standalone box makes no network call.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { freePort } from './support/tcp-backend.js';
import { ALL_OFF, startTestServer, waitFor, type TestServer } from './support/harness.js';

// 1 s of the host's interval is 20 ms of the client's timers: a 5 s interval beats every 100 ms.
const CLIENT_TIMING = { secondMs: 20, backoffInitialMs: 50, backoffMaxMs: 200, requestTimeoutMs: 1_000, deregisterTimeoutMs: 1_000 };
const hostToml = (allowed: string) => `${ALL_OFF}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${allowed}"]\n`;

type Fed = Record<string, unknown>;
const federation = async (box: TestServer): Promise<Fed> => (await box.api('/health', { auth: false })).json['federation'] as Fed;
const metrics = async (box: TestServer): Promise<string> => (await fetch(box.server.metricsUrl)).text();
const members = async (host: TestServer) => (await host.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>;

t.test('a mesh client', async (t) => {
  const port = await freePort();
  const hostUrl = `http://127.0.0.1:${port}`;
  const client = await startTestServer({ toml: `${ALL_OFF}[mesh]\nmode = "client"\nhost_url = "${hostUrl}"\n`, meshClientTiming: CLIENT_TIMING });
  t.teardown(() => client.close());
  // Sealed, so the box is ready: only the mesh could hold readiness back, and it must not.
  await writeFile(client.paths.sealFile, 'sealed\n');
  await waitFor('ready', async () => (await client.api('/ready', { auth: false })).status === 200);
  const pubkey = ((await client.api('/v1/meta')).json['identity'] as Record<string, string>)['pubkey']!;

  t.test('backs off while the host is unreachable, and stays ready', async (t) => {
    const fed = await waitFor('backing off', async () => {
      const f = await federation(client);
      return f['state'] === 'backing_off' && f['lastError'] ? f : undefined;
    });
    t.match(fed, { mode: 'client', hostUrl, host: hostUrl, sessionId: null, lastError: /register: POST .*ECONNREFUSED/, retryAt: String });
    t.equal((await client.api('/ready', { auth: false })).status, 200, '/ready does not wait for the mesh');
    t.match(await metrics(client), /agentbox_mesh_client_state\{state="backing_off"\} 1/);
    t.match(await metrics(client), /agentbox_mesh_client_calls_total\{call="register",outcome="error"\} [1-9]/);
  });

  let offsetMs = 0;
  let host = await startTestServer({ toml: hostToml(pubkey), apiPort: port, clock: () => new Date(Date.now() + offsetMs) });
  t.teardown(() => host.close());

  t.test('registers once the host comes up, then heartbeats', async (t) => {
    const fed = await waitFor('registered', async () => ((await federation(client))['state'] === 'registered' ? federation(client) : undefined));
    t.match(fed, { sessionId: /^[0-9a-f-]{36}$/, heartbeatIntervalSec: 5, registeredAt: String, lastError: null });
    const member = await waitFor('a heartbeat with health', async () => (await members(host)).find((m) => m['pubkey'] === pubkey && m['health'] !== null));
    t.match(member, {
      name: client.server.app.agentbox.manifest.agentbox.name,
      state: 'registered',
      api_endpoint: client.server.apiUrl,
      manifest_sha256: client.server.app.agentbox.manifestSha256,
      adapters: { orchestrator: 'off' },
      contract_versions: { orchestrator: String },
      health: { ready: true, status: 'ok', slots: { beads: 'off' } },
      capacity: { agents_running: 0, free_memory_bytes: Number },
    });
    t.match((await client.api('/v1/meta')).json['federation'], { mode: 'client', state: 'registered', lastHeartbeatAt: String });
    t.match(await metrics(client), /agentbox_mesh_client_calls_total\{call="heartbeat",outcome="ok"\} [1-9]/);
  });

  t.test('an evicted client gets 410 and registers again', async (t) => {
    const before = (await federation(client))['sessionId'];
    // Three intervals pass on the host's clock between two of the client's heartbeats.
    offsetMs += 16_000;
    const fed = await waitFor('a new session', async () => {
      const f = await federation(client);
      return f['state'] === 'registered' && f['sessionId'] !== before ? f : undefined;
    });
    t.ok(fed['sessionId'], 'registered under a new session');
    t.match(await metrics(client), /agentbox_mesh_client_calls_total\{call="heartbeat",outcome="gone"\} [1-9]/);
    t.ok(client.logs.events('MeshSessionGone').length >= 1, 'logged');
  });

  t.test('a host that stops and comes back (with a new registry) sees the client register again', async (t) => {
    const before = (await federation(client))['sessionId'];
    await host.close();
    await waitFor('backing off', async () => (await federation(client))['state'] === 'backing_off');
    t.equal((await client.api('/ready', { auth: false })).status, 200, 'still ready without its host');
    host = await startTestServer({ toml: hostToml(pubkey), apiPort: port });
    const fed = await waitFor('registered again', async () => {
      const f = await federation(client);
      return f['state'] === 'registered' && f['sessionId'] !== before ? f : undefined;
    });
    t.ok(fed['sessionId']);
    t.ok(await waitFor('listed', async () => (await members(host)).some((m) => m['pubkey'] === pubkey)));
  });

  t.test('deregisters when the API closes', async (t) => {
    await client.close();
    t.same(await members(host), [], 'the host no longer lists the client');
    t.equal(client.logs.events('MeshDeregistered').length, 1);
  });
});

t.test('a key the host does not allow is refused and backs off', async (t) => {
  const host = await startTestServer({ toml: hostToml('f'.repeat(64)) });
  t.teardown(() => host.close());
  const client = await startTestServer({ toml: `${ALL_OFF}[mesh]\nmode = "client"\nhost_url = "${host.server.apiUrl}"\n`, meshClientTiming: CLIENT_TIMING });
  t.teardown(() => client.close());
  const fed = await waitFor('refused', async () => {
    const f = await federation(client);
    return f['state'] === 'backing_off' && f['lastError'] ? f : undefined;
  });
  t.match(fed['lastError'], /^register: 401 .*not allowed: list it in mesh.allowed_pubkeys/);
  t.match(await metrics(client), /agentbox_mesh_client_calls_total\{call="register",outcome="refused"\} [1-9]/);
  t.same(await members(host), []);
});

t.test('a standalone box makes no network call, even with a host_url', async (t) => {
  let connections = 0;
  const listener = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => listener.close(() => resolve())));
  const address = listener.address() as { port: number };
  // The same client timings: a client would have called within 50 ms.
  const box = await startTestServer({
    toml: `${ALL_OFF}[mesh]\nmode = "standalone"\nhost_url = "http://127.0.0.1:${address.port}"\n`,
    meshClientTiming: CLIENT_TIMING,
  });
  t.match(await federation(box), { mode: 'standalone', state: 'disabled' });
  await new Promise((r) => setTimeout(r, 300));
  await box.close();
  t.equal(connections, 0, 'nothing connected to host_url, from start to close');
});

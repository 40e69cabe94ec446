// The URL a box gives its mesh: a host replica announces its advertised URL (not its listen address)
// in the replica list, and a client registers its advertised URL as api_endpoint — as the
// Kubernetes render arranges per pod, where the listen address is a wildcard no other pod can use.
import t from 'tap';
import { freePort } from './support/tcp-backend.js';
import { ALL_OFF, startTestServer, waitFor } from './support/harness.js';
import { TestMember } from './support/mesh-member.js';

const CLIENT_TIMING = { secondMs: 20, backoffInitialMs: 50, backoffMaxMs: 200, requestTimeoutMs: 1_000, deregisterTimeoutMs: 1_000 };
const HOST_URL = 'http://mesh-host-0.mesh-host-pods.team.svc:9090';
const CLIENT_URL = 'http://box-a-0.box-a-pods.team.svc:9090';

t.test('host replicas and clients advertise the URL they are given', async (t) => {
  const port = await freePort();
  const probe = new TestMember();
  const client = await startTestServer({
    toml: `${ALL_OFF}[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:${port}"\n`,
    advertiseUrl: CLIENT_URL,
    meshClientTiming: CLIENT_TIMING,
  });
  t.teardown(() => client.close());
  const clientKey = ((await client.api('/v1/meta')).json['identity'] as Record<string, string>)['pubkey']!;
  const host = await startTestServer({
    toml: `${ALL_OFF}[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${clientKey}", "${probe.identity.pubkey}"]\n`,
    apiPort: port,
    advertiseUrl: HOST_URL,
  });
  t.teardown(() => host.close());

  const reg = await probe.register(host.server.apiUrl);
  t.equal(reg.status, 201);
  t.same(reg.json['replicas'], [HOST_URL], 'the replica list holds the advertised URL, not the listen address');
  t.not(host.server.apiUrl, HOST_URL, 'the host still listens on its own address');

  const members = async () => (await host.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>;
  const member = await waitFor('the client registered', async () => (await members()).find((m) => m['pubkey'] === clientKey));
  t.equal(member['api_endpoint'], CLIENT_URL, "the client's api_endpoint is its advertised URL");
  t.ok(
    client.logs.events('ApiListening').some((e) => e['advertiseUrl'] === CLIENT_URL),
    'the start-up line names the advertised URL',
  );
});

// /v1/meta reports every field truthfully; /health reports uptime from the injected clock; /docs/json describes the routes.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { getPublicKey } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';
import { hexToBytes } from 'nostr-tools/utils';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { manifestFrom, startTestServer } from './support/harness.js';
import { WITNESS_KEY_FILE } from '../../management-api/src/mesh/host/witness-key.js';
import { parseCosignerKey } from '../../management-api/src/tlog/cosignature.js';

const toml =
  '[agentbox]\nname = "box-7"\n[mesh]\nmode = "host"\n[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "off"\n';

t.test('every /v1/meta field', async (t) => {
  const port = await freePort();
  const backend = new TcpBackend(port);
  await backend.start();
  const box = await startTestServer({ toml, env: { AGENTBOX_IMAGE_HASH: 'sha256-0123abcd' }, overrides: { events: tcpAdapterModule('events', port) } });
  t.teardown(async () => {
    await box.close();
    await backend.stop();
  });
  const meta = await box.api('/v1/meta');
  t.equal(meta.status, 200);
  const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  const { sha256 } = await manifestFrom(toml);
  const pubkey = getPublicKey(hexToBytes((await readFile(box.paths.identityKeyFile, 'utf8')).trim()));
  // The witness key a mesh host publishes is the one in its 0600 key file.
  const witnessKey = parseCosignerKey(await readFile(path.join(box.paths.secretsDir, WITNESS_KEY_FILE), 'utf8')).verifierKey;
  t.same(meta.json, {
    name: 'box-7',
    version: pkg.version,
    imageHash: 'sha256-0123abcd',
    manifestSha256: sha256,
    identity: { pubkey, npub: npubEncode(pubkey), did: `did:nostr:${pubkey}` },
    federation: {
      mode: 'host',
      registry: 'sqlite',
      heartbeatIntervalSec: 30,
      members: { registered: 0, evicted: 0 },
      lastError: null,
      witness: { verifierKey: witnessKey, flagged: 0 },
    },
    adapters: {
      beads: { impl: 'off', adapter: 'beads/off', contractVersion: '1.0.0', state: 'off' },
      pods: { impl: 'off', adapter: 'pods/off', contractVersion: '1.0.0', state: 'off' },
      memory: { impl: 'off', adapter: 'memory/off', contractVersion: '1.0.0', state: 'off' },
      events: { impl: 'local-jsonl', adapter: 'events/tcp-test', contractVersion: '1.1.0', state: 'healthy' },
      orchestrator: { impl: 'off', adapter: 'orchestrator/off', contractVersion: '1.0.0', state: 'off' },
    },
    metrics: { url: box.server.metricsUrl },
    agentApiUrl: box.server.app.agentbox.agentListener.url(),
    sandbox: { enabled: true, mode: 'unknown', namespaces: { setting: 'auto' } },
  });
  t.match(meta.json['agentApiUrl'], /^http:\/\/127\.0\.0\.1:\d+$/, "the agents' listener, on loopback");
  t.match(box.server.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  t.equal((await fetch(box.server.metricsUrl)).status, 200, 'the advertised metrics endpoint answers');
});

t.test('without an image hash in the environment the image is "dev"', async (t) => {
  const box = await startTestServer({ env: {} });
  t.teardown(() => box.close());
  t.equal((await box.api('/v1/meta')).json['imageHash'], 'dev');
  t.same((await box.api('/v1/meta')).json['federation'], { mode: 'standalone', state: 'disabled' });
});

t.test('/health uptime and timestamps come from the injected clock', async (t) => {
  let now = Date.parse('2030-01-01T00:00:00Z');
  const box = await startTestServer({ clock: () => new Date(now) });
  t.teardown(() => box.close());
  now += 42_500;
  const health = await box.api('/health', { auth: false });
  t.equal(health.json['uptimeSec'], 42.5);
  t.equal(health.json['startedAt'], '2030-01-01T00:00:00.000Z');
  t.equal(health.json['ready'], false);
  t.equal(health.json['status'], 'degraded', 'not ready is not ok');
  t.equal((await box.api('/ready', { auth: false })).json['since'], '2030-01-01T00:00:00.000Z');
  t.notOk('programs' in health.json, 'no supervisord socket, no programmes section');
});

t.test('/docs/json describes the probes and the API routes', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const doc = (await box.api('/docs/json')).json as {
    openapi: string;
    paths: Record<string, Record<string, { security?: unknown[]; requestBody?: unknown }>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  t.equal(doc.openapi, '3.1.0');
  for (const p of ['/livez', '/ready', '/health']) t.same(doc.paths[p]?.['get']?.security, [], `${p} is documented as public`);
  t.ok(doc.paths['/v1/meta']?.['get'], '/v1/meta');
  t.ok(doc.paths['/v1/events']?.['post']?.requestBody, '/v1/events with its body schema');
  t.notOk(doc.paths['/docs/json'], 'the document itself is hidden');
  t.match(doc.components.securitySchemes, { bearer: { type: 'http', scheme: 'bearer' } });
});

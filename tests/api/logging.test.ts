// Logs: JSON lines at the configured level, request ids, and no secrets (keys, authorization, connection strings).
import t from 'tap';
import type { AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { MemoryAdapter } from '../../management-api/src/adapters/memory/memory-adapter.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { scrubSecrets } from '../../management-api/src/observability/redact.js';
import { captureLogs, startTestServer } from './support/harness.js';

const connection = 'postgres://agent:s3cr3t-pass@127.0.0.1:1/memory';

/** An external-pg-like module whose configuration check fails quoting its connection string. */
const leakyMemory: AdapterModule<MemoryAdapter> = {
  ADAPTER: 'memory/leaky-test',
  CONTRACT_VERSION: '1.0.0',
  create: () => {
    throw new Error(`cannot reach ${connection}: ECONNREFUSED`);
  },
};

t.test('a request carrying the API key and an adapter failing with a connection string leave no secret in the logs', async (t) => {
  const box = await startTestServer({ logLevel: 'trace', toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "external-pg"\nevents = "off"\norchestrator = "off"\n[integrations.memory]\nconnection_env = "AGENTBOX_PG_URL"\n[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:9"\n', overrides: { memory: leakyMemory } });
  t.teardown(() => box.close());
  const meta = await box.api('/v1/meta', { headers: { cookie: 'session=abcdef', 'x-request-id': 'req-redaction-1' } });
  t.equal(meta.status, 200);
  const health = await box.api('/health', { auth: false });
  const reason = (health.json['slots'] as Record<string, { reason: string }>)['memory']?.reason;
  t.equal(reason, 'connect-failed: cannot reach postgres://agent:[Redacted]@127.0.0.1:1/memory: ECONNREFUSED', 'the reported reason is scrubbed too');
  box.server.app.log.info({ apiKey: box.key, nested: { token: 'tok-123456789', password: 'pw-123456789' }, connectionString: connection }, `connecting with ${connection} and password=hunter2xyz`);

  const text = box.logs.text();
  for (const secret of [box.key, 's3cr3t-pass', 'session=abcdef', 'tok-123456789', 'pw-123456789', 'hunter2xyz']) t.notOk(text.includes(secret), `"${secret.slice(0, 6)}…" is not in the logs`);
  const lines = text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(lines.length > 5, 'logs are JSON lines');
  const incoming = lines.find((l) => l['reqId'] === 'req-redaction-1' && (l['req'] as { headers?: unknown } | undefined)?.headers);
  t.match(incoming, { req: { method: 'GET', url: '/v1/meta', headers: { authorization: '[Redacted]', cookie: '[Redacted]' } } }, 'the request log keeps headers but redacts credentials');
  t.ok(lines.some((l) => l['reqId'] === 'req-redaction-1' && l['msg'] === 'request completed'), 'request lines carry the request id');
  t.match(box.logs.events('SlotDegraded').find((e) => e['slot'] === 'memory'), { reason: /postgres:\/\/agent:\[Redacted\]@127\.0\.0\.1:1/ });
  const manual = lines.find((l) => String(l['msg']).startsWith('connecting with'));
  t.match(manual, { apiKey: '[Redacted]', connectionString: '[Redacted]', nested: { token: '[Redacted]', password: '[Redacted]' } });
  t.match(manual?.['msg'], 'postgres://agent:[Redacted]@127.0.0.1:1/memory and password=[Redacted]');
});

t.test('the level is respected: at warn, no request lines', async (t) => {
  const box = await startTestServer({ logLevel: 'warn' });
  t.teardown(() => box.close());
  await box.api('/v1/meta');
  t.notMatch(box.logs.text(), /request completed/);
  t.match(box.logs.text(), /"event":"ApiListening"/, 'the bound ports are announced at any level');
  t.match(box.logs.text(), /"event":"ReadinessChanged"/, 'an UNREADY box is a warning');
});

t.test('errors are serialised and scrubbed; probes stay out of info logs', async (t) => {
  const logs = captureLogs();
  const logger = createLogger({ level: 'info', destination: logs.destination });
  logger.error({ err: new Error(`lost ${connection}`) }, 'failure');
  const line = JSON.parse(logs.text().trim()) as { err: { message: string; stack: string; type: string } };
  t.equal(line.err.type, 'Error');
  t.equal(line.err.message, 'lost postgres://agent:[Redacted]@127.0.0.1:1/memory');
  t.notMatch(line.err.stack, 's3cr3t');
  t.equal(scrubSecrets('plain text'), 'plain text');
  t.equal(scrubSecrets('Authorization: Bearer abcdefghijklmnop'), 'Authorization: Bearer [Redacted]');
  t.equal(scrubSecrets("host=db password='x y z' user=a"), 'host=db password=[Redacted] user=a');

  const box = await startTestServer({ logLevel: 'info' });
  t.teardown(() => box.close());
  await box.api('/ready', { auth: false });
  await box.api('/livez', { auth: false });
  t.notMatch(box.logs.text(), /"url":"\/(ready|livez)"/, 'probes are not logged at info');
});

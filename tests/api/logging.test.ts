// Logs: JSON lines at the configured level, request ids, and no secrets (keys, authorization, connection strings).
import t from 'tap';
import type { AdapterModule } from '../../management-api/src/adapters/adapter.js';
import type { MemoryAdapter } from '../../management-api/src/adapters/memory/memory-adapter.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { scrubSecrets, scrubUrl } from '../../management-api/src/secrets/redact.js';
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
  const box = await startTestServer({
    logLevel: 'trace',
    toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "external-pg"\nevents = "off"\norchestrator = "off"\n[integrations.memory]\nconnection_env = "AGENTBOX_PG_URL"\n[mesh]\nmode = "client"\nhost_url = "http://127.0.0.1:9"\n',
    overrides: { memory: leakyMemory },
  });
  t.teardown(() => box.close());
  const meta = await box.api('/v1/meta', { headers: { cookie: 'session=abcdef', 'x-request-id': 'req-redaction-1' } });
  t.equal(meta.status, 200);
  const health = await box.api('/health', { auth: false });
  const reason = (health.json['slots'] as Record<string, { reason: string }>)['memory']?.reason;
  t.equal(reason, 'connect-failed: cannot reach postgres://agent:[Redacted]@127.0.0.1:1/memory: ECONNREFUSED', 'the reported reason is scrubbed too');
  box.server.app.log.info(
    { apiKey: box.key, nested: { token: 'tok-123456789', password: 'pw-123456789' }, connectionString: connection },
    `connecting with ${connection} and password=hunter2xyz`,
  );

  const text = box.logs.text();
  for (const secret of [box.key, 's3cr3t-pass', 'session=abcdef', 'tok-123456789', 'pw-123456789', 'hunter2xyz'])
    t.notOk(text.includes(secret), `"${secret.slice(0, 6)}…" is not in the logs`);
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(lines.length > 5, 'logs are JSON lines');
  const incoming = lines.find((l) => l['reqId'] === 'req-redaction-1' && (l['req'] as { headers?: unknown } | undefined)?.headers);
  t.match(
    incoming,
    { req: { method: 'GET', url: '/v1/meta', headers: { authorization: '[Redacted]', cookie: '[Redacted]' } } },
    'the request log keeps headers but redacts credentials',
  );
  t.ok(
    lines.some((l) => l['reqId'] === 'req-redaction-1' && l['msg'] === 'request completed'),
    'request lines carry the request id',
  );
  t.match(
    box.logs.events('SlotDegraded').find((e) => e['slot'] === 'memory'),
    { reason: /postgres:\/\/agent:\[Redacted\]@127\.0\.0\.1:1/ },
  );
  const manual = lines.find((l) => String(l['msg']).startsWith('connecting with'));
  t.match(manual, { apiKey: '[Redacted]', connectionString: '[Redacted]', nested: { token: '[Redacted]', password: '[Redacted]' } });
  t.match(manual?.['msg'], 'postgres://agent:[Redacted]@127.0.0.1:1/memory and password=[Redacted]');
});

t.test('credentials in a URL never reach the logs: query parameters named like credentials and userinfo', async (t) => {
  const box = await startTestServer({ logLevel: 'trace' });
  t.teardown(() => box.close());
  // The key in a query string is refused (only the Authorization header counts) …
  const refused = await box.api(`/v1/beads?api_key=${box.key}&limit=5`, {
    auth: false,
    headers: { 'x-request-id': 'req-query-key', referer: 'https://ui.example/page?token=ref-query-9999' },
  });
  t.equal(refused.status, 401);
  // … also with a wrong bearer key (AuthRejected names the route), on an unknown route, and in a fragment-like or encoded name.
  t.equal((await box.api('/v1/beads?access_token=tok-query-1111&kind=epic', { auth: 'wrong-key' })).status, 401);
  t.equal((await box.api('/v1/nowhere?X-Amz-Signature=sig-query-2222&token=tok-query-3333')).status, 404);
  t.equal((await box.api('/v1/meta?api%5Fkey=enc-query-4444')).status, 200);
  box.server.app.log.error(
    {
      err: new Error('GET https://sink.example/v1/events?apikey=err-query-5555 failed'),
      target: 'https://bob:url-pass-6666@sink.example/x?sig=sig-query-7777',
    },
    'calling https://sink.example/hook?secret=msg-query-8888&page=2',
  );

  const text = box.logs.text();
  for (const secret of [
    box.key,
    'tok-query-1111',
    'sig-query-2222',
    'tok-query-3333',
    'enc-query-4444',
    'err-query-5555',
    'url-pass-6666',
    'sig-query-7777',
    'msg-query-8888',
    'ref-query-9999',
  ])
    t.notOk(text.includes(secret), `"${secret.slice(0, 9)}…" is not in the logs`);
  const lines = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const completed = lines.find((l) => l['reqId'] === 'req-query-key' && l['msg'] === 'request completed');
  t.match(
    completed,
    { req: { url: '/v1/beads?api_key=[Redacted]&limit=5', headers: { referer: 'https://ui.example/page?token=[Redacted]' } }, res: { statusCode: 401 } },
    'the request line keeps the path and harmless parameters; headers holding URLs are scrubbed too',
  );
  t.match(box.logs.events('AuthRejected')[0], { route: '/v1/beads' });
  const manual = lines.find((l) => String(l['msg']).startsWith('calling'));
  t.equal(manual?.['msg'], 'calling https://sink.example/hook?secret=[Redacted]&page=2');
  t.match(manual, {
    err: { message: 'GET https://sink.example/v1/events?apikey=[Redacted] failed' },
    target: 'https://bob:[Redacted]@sink.example/x?sig=[Redacted]',
  });
});

t.test('scrubUrl: which parameters are credentials', async (t) => {
  const cases: Array<[string, string]> = [
    ['/v1/beads?limit=10&kind=epic', '/v1/beads?limit=10&kind=epic'],
    [
      '/v1/beads?key=a1&apikey=a2&api-key=a3&apiKey=a4&subscription-key=a5',
      '/v1/beads?key=[Redacted]&apikey=[Redacted]&api-key=[Redacted]&apiKey=[Redacted]&subscription-key=[Redacted]',
    ],
    [
      'https://h/p?token=b1&access_token=b2&refresh_token=b3&id_token=b4&jwt=b5',
      'https://h/p?token=[Redacted]&access_token=[Redacted]&refresh_token=[Redacted]&id_token=[Redacted]&jwt=[Redacted]',
    ],
    [
      'https://h/p?auth=c1&password=c2&passwd=c3&pwd=c4&secret=c5&client_secret=c6',
      'https://h/p?auth=[Redacted]&password=[Redacted]&passwd=[Redacted]&pwd=[Redacted]&secret=[Redacted]&client_secret=[Redacted]',
    ],
    [
      'https://blob/c?sv=2020&sig=d1&X-Amz-Credential=d2&X-Amz-Signature=d3&session=d4',
      'https://blob/c?sv=2020&sig=[Redacted]&X-Amz-Credential=[Redacted]&X-Amz-Signature=[Redacted]&session=[Redacted]',
    ],
    ['https://h/cb#access_token=e1&state=xyz', 'https://h/cb#access_token=[Redacted]&state=xyz'],
    ['https://user:pw@h/p?q=1', 'https://user:[Redacted]@h/p?q=1'],
    ['https://h/p?token=', 'https://h/p?token='],
  ];
  for (const [input, expected] of cases) t.equal(scrubUrl(input), expected, input);
  t.equal(scrubSecrets('see "/v1/x?token=f1" and \'/v1/y?key=f2\''), 'see "/v1/x?token=[Redacted]" and \'/v1/y?key=[Redacted]\'', 'stops at quotes');
  t.equal(scrubSecrets('a=b and c=d'), 'a=b and c=d', 'plain pairs outside a URL stay');
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
  t.equal(scrubSecrets('key nsec180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6 leaked'), 'key [Redacted] leaked', 'an nsec');
  t.equal(scrubSecrets('Authorization: Nostr eyJpZCI6ImFiYyIsInB1YmtleSI6ImRlZiJ9'), 'Authorization: Nostr [Redacted]', 'a NIP-98 token');
  t.equal(scrubSecrets('the nostr relay is up'), 'the nostr relay is up');
  t.equal(scrubSecrets("host=db password='x y z' user=a"), 'host=db password=[Redacted] user=a');

  const box = await startTestServer({ logLevel: 'info' });
  t.teardown(() => box.close());
  await box.api('/ready', { auth: false });
  await box.api('/livez', { auth: false });
  t.notMatch(box.logs.text(), /"url":"\/(ready|livez)"/, 'probes are not logged at info');
});

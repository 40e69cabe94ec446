// The provider broker never sends the key outside base_url's path: raw requests with dot segments, encoded
// dots, slashes and backslashes, `;` parameters and empty segments, against the real API and a stand-in provider.
import t from 'tap';
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { startStandInProvider, type StandInProvider } from '../helpers/stand-in-provider.js';
import { startTestServer, type TestServer } from './support/harness.js';

const REAL_KEY = 'sk-stand-in-real-key-paths-0123456789';

let provider: StandInProvider;
let box: TestServer;
let token: string;
t.before(async () => {
  provider = await startStandInProvider();
  box = await startTestServer({
    env: { STAND_API_KEY: REAL_KEY },
    toml: [
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"',
      `[providers.stand]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}/v1"`,
      `[providers.slashed]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}/anthropic/"`,
    ].join('\n'),
  });
  const res = await box.api('/v1/agents', { body: { name: 'climber', command: '/bin/sleep', args: ['600'] } });
  const pid = (res.json['agent'] as { pid: number }).pid;
  const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
  token = /(?:^|\0)AGENTBOX_TOKEN=([^\0]*)/.exec(environ)?.[1] ?? '';
});
t.teardown(async () => {
  await box?.close();
  await provider?.close();
});

/** Send `target` byte for byte (node:http does not normalise a request path) and return the status and body. */
async function raw(target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: box.server.apiPort, path: target, headers: { authorization: `Bearer ${token}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

// Each would reach /admin (or another path outside /v1) on the provider's origin once some parser resolved it.
const CLIMBS = [
  '/../admin/keys',
  '/chat/../../admin/keys',
  '/%2e%2e/admin/keys',
  '/%2E%2E/admin/keys',
  '/%2e%2E/admin/keys',
  '/.%2e/admin/keys',
  '/%2e./admin/keys',
  '/%252e%252e/admin/keys',
  '/..%2fadmin/keys',
  '/..%2Fadmin/keys',
  '/..%5cadmin/keys',
  '/..%5Cadmin/keys',
  '/..\\admin/keys',
  '/\\..\\admin/keys',
  '/..;/admin/keys',
  '/..;x=1/admin/keys',
  '/..%3b/admin/keys',
  '/./../admin/keys',
  '//127.0.0.1/admin/keys',
  '/chat//../admin/keys',
  '/../admin/keys?q=1',
  '/%2e%2e?next=/admin',
];

t.test('no path that climbs out of base_url is forwarded; the key never arrives outside the prefix', async (t) => {
  for (const provider of ['stand', 'slashed']) {
    for (const climb of CLIMBS) {
      const res = await raw(`/v1/providers/${provider}${climb}`);
      t.equal(res.status, 400, `${provider}${climb} refused`);
      t.match(JSON.parse(res.body), { error: 'ABX_ERR_PROVIDER_PATH' }, `${provider}${climb}: the broker's own code`);
    }
  }
  const outside = provider.arrivals.filter((a) => !a.url.startsWith('/v1/') && !a.url.startsWith('/anthropic/'));
  t.same(
    outside.map((a) => a.url),
    [],
    'nothing arrived outside base_url',
  );
  t.notOk(
    provider.arrivals.some((a) => JSON.stringify(a.headers).includes(REAL_KEY)),
    'the key did not arrive at all',
  );
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, new RegExp(`agentbox_provider_requests_total\\{provider="stand",outcome="refused"\\} ${CLIMBS.length}`));
});

t.test('ordinary paths still pass, dots inside a name and anything in the query included', async (t) => {
  const before = provider.arrivals.length;
  for (const [sent, arrived] of [
    ['/v1/providers/stand/chat/completions', '/v1/chat/completions'],
    ['/v1/providers/stand/models/gpt-4.1-mini', '/v1/models/gpt-4.1-mini'],
    ['/v1/providers/stand/files/a..b/content', '/v1/files/a..b/content'],
    ['/v1/providers/stand/models/', '/v1/models/'],
    ['/v1/providers/stand/search?q=a%2Fb%2e%5c;c', '/v1/search?q=a%2Fb%2e%5c;c'],
    ['/v1/providers/slashed/v1/messages', '/anthropic/v1/messages'],
  ] as const) {
    const res = await raw(sent);
    t.equal(res.status, 200, `${sent} ${res.body}`);
    t.equal((JSON.parse(res.body) as { url: string }).url, arrived, `${sent} → ${arrived}`);
  }
  const forwarded = provider.arrivals.slice(before);
  t.equal(forwarded.length, 6);
  for (const a of forwarded) t.equal(a.headers['authorization'], `Bearer ${REAL_KEY}`, `${a.url} got the key`);
});

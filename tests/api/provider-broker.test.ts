// The provider broker on the real API with real agent processes and a stand-in provider on 127.0.0.1:
// the real key replaces the agent's token, bodies stream both ways, a provider that is down answers 502.
import t from 'tap';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { closedPort, startStandInProvider, type StandInProvider } from '../helpers/stand-in-provider.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';
import { environOf, spawnAgent, type SpawnedAgent } from './support/agent-processes.js';

const REAL_KEY = 'sk-stand-in-real-key-0123456789abcdef';
const ANTHRO_KEY = 'sk-ant-stand-in-real-key-0123456789';

let provider: StandInProvider;
let box: TestServer;
t.before(async () => {
  provider = await startStandInProvider();
  const down = await closedPort();
  box = await startTestServer({
    env: { STAND_API_KEY: REAL_KEY, ANTHRO_KEY },
    toml: [
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"',
      `[providers.stand]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}/v1"`,
      `[providers.anthro-test]\nenv_var = "ANTHRO_KEY"\nbase_url = "${provider.url}/anthropic/"`,
      `[providers.down]\nenv_var = "STAND_API_KEY"\nbase_url = "http://127.0.0.1:${down}"`,
      `[providers.keyless]\nenv_var = "NOT_SET_ANYWHERE"\nbase_url = "${provider.url}"`,
      `[providers.off]\nenabled = false\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}"`,
    ].join('\n'),
  });
});
t.teardown(async () => {
  await box?.close();
  await provider?.close();
});

type Agent = SpawnedAgent;
const spawn = (name: string, command: string, args: string[]): Promise<Agent> => spawnAgent(box, name, command, args);
const environ = environOf;
const output = async (id: string): Promise<string> =>
  ((await box.api(`/v1/agents/${id}/output`)).json['chunks'] as Array<{ stream: string; text: string }>)
    .filter((c) => c.stream === 'stdout')
    .map((c) => c.text)
    .join('');

/** A live agent and its token, read from its environment as the agent sees it. */
let sleeper: Agent;
let token: string;
t.before(async () => {
  sleeper = await spawn('sleeper', '/bin/sleep', ['600']);
  token = (await environ(sleeper.pid))['AGENTBOX_TOKEN'] ?? '';
});

t.test('an agent gets its token, the API URL and one <NAME>_BASE_URL and <NAME>_API_KEY (its token) per enabled provider, never a key', async (t) => {
  const env = await environ(sleeper.pid);
  // The agents' own listener (http/agent-listener.ts), never the operator's port.
  const api = box.server.app.agentbox.agentListener.url()!;
  t.not(api, `http://127.0.0.1:${box.server.apiPort}`, "not the operator's port");
  t.match(env['AGENTBOX_TOKEN'], /^abx_agent_[A-Za-z0-9_-]{43}$/, '32 random bytes');
  t.equal(env['AGENTBOX_API_URL'], api);
  t.equal(env['STAND_BASE_URL'], `${api}/v1/providers/stand`);
  t.equal(env['ANTHRO_TEST_BASE_URL'], `${api}/v1/providers/anthro-test`);
  t.equal(env['OFF_BASE_URL'], undefined, 'a disabled provider is not offered');
  t.equal(env['STAND_API_KEY'], env['AGENTBOX_TOKEN'], "the provider's key variable holds the agent's own token");
  t.equal(env['ANTHRO_TEST_API_KEY'], env['AGENTBOX_TOKEN']);
  t.equal(env['OFF_API_KEY'], undefined);
  const environText = await readFile(`/proc/${sleeper.pid}/environ`, 'utf8');
  const cmdline = await readFile(`/proc/${sleeper.pid}/cmdline`, 'utf8');
  for (const secret of [box.key, REAL_KEY, ANTHRO_KEY]) {
    t.notOk(environText.includes(secret), 'no key in the environ');
    t.notOk(cmdline.includes(secret), 'no key in the cmdline');
  }
  const refused = await box.api('/v1/agents', { body: { name: 'leaky', command: '/bin/echo', args: [`--key=${box.key}`] } });
  t.match(
    refused,
    { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /carry the box API key/ } },
    'a spawn that would hand the operator key to an agent is refused',
  );
  t.notOk(JSON.stringify(refused.json).includes(box.key), 'the refusal does not echo the key');
});

t.test("an agent's own call reaches the provider with the real key and without its token", async (t) => {
  const script = `fetch(process.env.STAND_BASE_URL + '/chat/completions?stream=false', { method: 'POST', headers: { authorization: 'Bearer ' + process.env.AGENTBOX_TOKEN, 'content-type': 'application/json', 'x-trace': 'kept' }, body: JSON.stringify({ model: 'm', messages: ['hi'] }) }).then(async (r) => console.log(r.status, await r.text()))`;
  const caller = await spawn('caller', process.execPath, ['-e', script]);
  await waitFor(
    'the agent to finish',
    async () =>
      (await box.api(`/v1/agents/${caller.id}`)).json['agent'] && ((await box.api(`/v1/agents/${caller.id}`)).json['agent'] as Agent).state !== 'running',
    10_000,
  );
  const printed = await output(caller.id);
  t.match(printed, /^200 /, 'the agent got the provider answer');
  const arrival = provider.arrivals.find((a) => a.url.startsWith('/v1/chat/completions'));
  t.ok(arrival, 'the call arrived under base_url');
  t.equal(arrival!.url, '/v1/chat/completions?stream=false', 'path and query forwarded');
  t.equal(arrival!.method, 'POST');
  t.equal(arrival!.headers['authorization'], `Bearer ${REAL_KEY}`, 'the real key replaced the token');
  t.equal(arrival!.headers['x-trace'], 'kept', 'other headers are forwarded');
  t.same(JSON.parse(arrival!.body), { model: 'm', messages: ['hi'] }, 'the body arrived unchanged');
  t.notOk(JSON.stringify(arrival!.headers).includes('abx_agent_'), 'no agent token reached the provider');
  t.equal(arrival!.headers['host'], `127.0.0.1:${provider.port}`, 'Host names the provider');
});

t.test('x-api-key (Anthropic style) is swapped in place; hop-by-hop headers stay behind', async (t) => {
  const api = `http://127.0.0.1:${box.server.apiPort}/v1/providers/anthro-test`;
  const res = await fetch(`${api}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'proxy-authorization': 'Basic eDp5' },
    body: '{"max_tokens":1}',
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-provider'), 'stand-in', 'provider headers come back');
  t.equal(res.headers.get('x-hop'), null, 'headers the provider lists in Connection do not');
  const arrival = (await res.json()) as { url: string; headers: Record<string, string> };
  t.equal(arrival.url, '/anthropic/v1/messages', 'a trailing slash of base_url is not doubled');
  t.equal(arrival.headers['x-api-key'], ANTHRO_KEY);
  t.equal(arrival.headers['authorization'], undefined);
  t.equal(arrival.headers['proxy-authorization'], undefined);
  t.equal(arrival.headers['anthropic-version'], '2023-06-01');
});

t.test('a streamed answer reaches the agent event by event', async (t) => {
  const res = await fetch(`http://127.0.0.1:${box.server.apiPort}/v1/providers/stand/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: '{}',
  });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const received: string[] = [];
  for (let n = 1; n <= 3; n++) {
    provider.release();
    let text = '';
    while (!text.includes(`"n":${n}`)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    received.push(text.trim());
    // The next event is written only after this one was read here: nothing is buffered to the end.
    t.equal(provider.sent(), n, `event ${n} arrived while the provider had written ${n}`);
  }
  t.same(received, ['data: {"n":1}', 'data: {"n":2}', 'data: {"n":3}']);
  t.ok((await reader.read()).done);
});

t.test('a large upload streams through (past the 1 MiB JSON body limit)', async (t) => {
  const size = 8 * 1024 * 1024;
  const res = await fetch(`http://127.0.0.1:${box.server.apiPort}/v1/providers/stand/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body: new Uint8Array(size),
  });
  t.equal(res.status, 200);
  t.same(await res.json(), { bytes: size });
});

t.test('provider down → 502, key missing → 503, no or a wrong token → 401', async (t) => {
  const api = `http://127.0.0.1:${box.server.apiPort}/v1/providers`;
  const down = await fetch(`${api}/down/v1/models`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(down.status, 502);
  t.match(await down.json(), { error: 'ABX_ERR_PROVIDER_UNREACHABLE', message: /provider down \(http:\/\/127\.0\.0\.1:\d+\) cannot be reached: ECONNREFUSED/ });
  const keyless = await fetch(`${api}/keyless/x`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(keyless.status, 503);
  t.match(await keyless.json(), { error: 'ABX_ERR_PROVIDER_KEY_MISSING', message: /providers\.keyless\.env_var names NOT_SET_ANYWHERE/ });
  t.equal((await fetch(`${api}/stand/x`)).status, 401, 'no token');
  t.equal((await fetch(`${api}/stand/x`, { headers: { 'x-api-key': 'abx_agent_not-a-live-token' } })).status, 401, 'an unknown token');
  t.equal((await fetch(`${api}/off/x`, { headers: { authorization: `Bearer ${box.key}` } })).status, 404, 'a disabled provider has no route');
  t.match(
    await (await fetch(`${api}/off/x`, { headers: { authorization: `Bearer ${token}` } })).json(),
    { error: 'ABX_ERR_NOT_FOUND' },
    'nor for an agent token: the 404 any caller gets where no route matches',
  );
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, /agentbox_provider_requests_total\{provider="down",outcome="unreachable"\} 1/);
  t.match(metrics, /agentbox_provider_requests_total\{provider="keyless",outcome="no-key"\} 1/);
  t.match(metrics, /agentbox_provider_requests_total\{provider="stand",outcome="2xx"\} [1-9]/);
  t.match(metrics, /agentbox_provider_response_seconds_count\{provider="stand"\} [1-9]/);
  t.match(metrics, /agentbox_agent_tokens [1-9]/);
});

t.test('the token stops working when its agent is terminated; neither key nor token is logged', async (t) => {
  t.equal((await box.api(`/v1/agents/${sleeper.id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  const res = await fetch(`http://127.0.0.1:${box.server.apiPort}/v1/providers/stand/x`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(res.status, 401);
  t.match(await res.json(), { error: 'ABX_ERR_AUTH_INVALID', message: /unknown or revoked/ });
  const logs = box.logs.text();
  for (const secret of [REAL_KEY, ANTHRO_KEY, token, box.key]) t.notOk(logs.includes(secret), 'not in the log');
});

t.test('a provider with an unverifiable certificate never sees the request; a silent one times out (504)', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'stand-in-tls-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  await promisify(execFile)('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  const selfSigned = await startStandInProvider({ tls: { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8') } });
  t.teardown(() => selfSigned.close());
  const other = await startTestServer({
    env: { STAND_API_KEY: REAL_KEY },
    brokerTiming: { headersTimeoutMs: 200 },
    toml: [
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"',
      `[providers.selfsigned]\nenv_var = "STAND_API_KEY"\nbase_url = "${selfSigned.url}"`,
      `[providers.silent]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}"`,
    ].join('\n'),
  });
  t.teardown(() => other.close());
  const agent = (await other.api('/v1/agents', { body: { name: 'tls', command: '/bin/sleep', args: ['600'] } })).json['agent'] as Agent;
  const agentToken = (await environ(agent.pid))['AGENTBOX_TOKEN'];
  const call = (name: string, rest: string) =>
    fetch(`http://127.0.0.1:${other.server.apiPort}/v1/providers/${name}${rest}`, { headers: { authorization: `Bearer ${agentToken}` } });

  const tls = await call('selfsigned', '/v1/models');
  t.equal(tls.status, 502);
  t.match(await tls.json(), { error: 'ABX_ERR_PROVIDER_UNREACHABLE', message: /SELF_SIGNED|CERT/ }, 'the certificate is checked');
  t.same(selfSigned.arrivals, [], 'so the key never left');

  const silent = await call('silent', '/hang');
  t.equal(silent.status, 504);
  t.match(await silent.json(), { error: 'ABX_ERR_PROVIDER_TIMEOUT', message: /provider silent .* sent no response headers within 200 ms/ });
});

// The egress proxy end to end: the real proxy programme, the real API controlling it over its socket, real agents and stand-in servers on 127.0.0.1.
import t from 'tap';
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { makeRoot, startTestServer, type TestServer } from './support/harness.js';
import { startProxyProgramme as startProxy } from './support/egress-proxy-programme.js';
import { waitFor } from '../helpers/wait.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const agentScript = path.join(repo, 'tests/api/fixtures/egress-agent.mjs');

/** Bytes the echo server sends and closes with when a client writes `bulk`. */
const BULK = 32 * 1024 * 1024;

/** A TCP echo server (`bulk` asks for BULK bytes, then it closes) and an HTTP server that records what reaches it, both on 127.0.0.1. */
async function standIns(): Promise<{ echoPort: number; httpPort: number; seen: http.IncomingHttpHeaders[]; close: () => void }> {
  const echo = net.createServer((s) => {
    s.on('error', () => undefined);
    s.on('data', (d: Buffer) => (d.toString() === 'bulk' ? s.end(Buffer.alloc(BULK, 1)) : s.write(d)));
  });
  const seen: http.IncomingHttpHeaders[] = [];
  const web = http.createServer((req, res) => {
    seen.push(req.headers);
    res.end(`hello from ${req.url}`);
  });
  await Promise.all([new Promise<void>((r) => echo.listen(0, '127.0.0.1', r)), new Promise<void>((r) => web.listen(0, '127.0.0.1', r))]);
  return {
    echoPort: (echo.address() as net.AddressInfo).port,
    httpPort: (web.address() as net.AddressInfo).port,
    seen,
    close: () => {
      echo.close();
      web.close();
    },
  };
}

/** CONNECT through the proxy at `port` with `auth` (an `id:secret` pair or none); resolves to the status and the refusal reason. */
function connectVia(
  port: number,
  target: string,
  auth?: string,
): Promise<{ status: number; reason?: string; refusal?: string; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\r\n\r\n')) return;
      s.removeAllListeners('data');
      const reason = /x-agentbox-egress: (\S+)/i.exec(got)?.[1];
      const refusal = /x-agentbox-refusal: ([^\r]+)/i.exec(got)?.[1];
      resolve({
        status: Number(got.split(' ')[1]),
        ...(reason ? { reason } : {}),
        ...(refusal ? { refusal } : {}),
        body: got.slice(got.indexOf('\r\n\r\n') + 4),
        socket: s,
      });
    });
    s.once('error', reject);
    const header = auth === undefined ? '' : `Proxy-Authorization: Basic ${Buffer.from(auth).toString('base64')}\r\n`;
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${header}\r\n`);
  });
}

/** A plain HTTP request in absolute form through the proxy. */
function getVia(port: number, url: string, auth: string): Promise<{ status: number; body: string; refusal?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path: url, headers: { host: new URL(url).host, 'proxy-authorization': `Basic ${Buffer.from(auth).toString('base64')}` } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        const refusal = res.headers['x-agentbox-refusal'];
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...(typeof refusal === 'string' ? { refusal } : {}) }));
      },
    );
    req.once('error', reject);
    req.end();
  });
}

const credentialOf = (env: Record<string, string>): string => {
  const u = new URL(env['HTTP_PROXY']!);
  return `${u.username}:${u.password}`;
};

t.test('egress through the proxy programme', async (t) => {
  const stand = await standIns();
  t.teardown(stand.close);
  const root = await makeRoot();
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n[sandbox.egress]\nallow_domains = ["localhost"]\nallow_ports = [${stand.echoPort}, ${stand.httpPort}]\n`;
  writeFileSync(manifestFile, toml);
  await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  let proxy = await startProxy(root.dir, manifestFile);
  t.teardown(() => void proxy.proc.kill());
  const server: TestServer = await startTestServer({
    toml,
    root,
    egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } },
  });
  t.teardown(() => server.close());
  const egress = server.server.app.agentbox.egress!;
  await waitFor('the control channel', () => egress.status().reachable);

  await t.test("the control socket is the box user's alone and wants the API key", async (t) => {
    t.equal(statSync(root.paths.egressControlSocket).mode & 0o777, 0o600);
    const reply = await new Promise<string>((resolve) => {
      const s = net.connect(root.paths.egressControlSocket);
      let got = '';
      s.on('data', (d: Buffer) => (got += d.toString()));
      s.on('close', () => resolve(got));
      s.write(`${JSON.stringify({ id: 1, op: 'policy-set', policy: { allow_domains: ['*.evil.example'], allow_ports: [1] } })}\n`);
    });
    t.match(reply, /unauthenticated/, 'a request before hello is refused and the connection closed');
    t.same((await egress.policy()).policy.allow_domains, ['localhost'], 'nothing changed');
  });

  await t.test('an agent gets its own credential and reaches only what is listed', async (t) => {
    const targets = [
      `localhost:${stand.echoPort}`,
      `127.0.0.1:${stand.echoPort}`,
      'example.invalid:443',
      'localhost:1',
      `10.0.0.1:${stand.echoPort}`,
      '169.254.169.254:80',
      `[::ffff:169.254.169.254]:${stand.echoPort}`,
    ];
    // In the agent's own directory: of the installation, agents read only its code, not tests/.
    mkdirSync(path.join(server.paths.workspaceDir, 'egress-agent'), { recursive: true });
    copyFileSync(agentScript, path.join(server.paths.workspaceDir, 'egress-agent', 'egress-agent.mjs'));
    const spawned = await server.api('/v1/agents', { body: { name: 'egress-agent', command: process.execPath, args: ['egress-agent.mjs', ...targets] } });
    t.equal(spawned.status, 201, JSON.stringify(spawned.json));
    const id = (spawned.json['agent'] as { id: string }).id;
    await waitFor('the agent to end', async () => ((await server.api(`/v1/agents/${id}`)).json['agent'] as { state: string }).state !== 'running');
    const out = await server.api(`/v1/agents/${id}/output`);
    const lines = (out.json['chunks'] as Array<{ stream: string; text: string }>)
      .filter((c) => c.stream === 'stdout')
      .map((c) => c.text)
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    t.same(
      lines[0],
      {
        vars: ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'NODE_USE_ENV_PROXY'],
        noProxy: '127.0.0.1,localhost,::1',
        user: id,
        agent: id,
      },
      'the proxy variables name the agent',
    );
    const byTarget = Object.fromEntries(lines.slice(1).map((l) => [l['target'], l]));
    t.same(
      byTarget[`localhost:${stand.echoPort}`],
      { target: `localhost:${stand.echoPort}`, status: 200, echo: 'ping' },
      'a listed name and port: tunnel works',
    );
    t.match(byTarget[`127.0.0.1:${stand.echoPort}`], { status: 403, reason: 'domain-not-listed' }, 'loopback by address is not listed');
    t.match(byTarget['example.invalid:443'], { status: 403, reason: 'domain-not-listed' });
    t.match(byTarget['localhost:1'], { status: 403, reason: 'port-not-listed' });
    t.match(byTarget[`10.0.0.1:${stand.echoPort}`], { status: 403, reason: 'domain-not-listed' }, 'a private address is refused unless listed');
    t.match(byTarget['169.254.169.254:80'], { status: 403 }, 'the metadata address is refused');
    t.match(byTarget[`[::ffff:169.254.169.254]:${stand.echoPort}`], { status: 403 }, 'also written as an IPv4-mapped IPv6 literal');
    // The credential the agent held is revoked with its exit.
    const url = new URL(readFileSync(path.join(server.paths.workspaceDir, 'egress-agent', 'proxy-url'), 'utf8'));
    await waitFor(
      'the revocation',
      async () => (await connectVia(proxy.port, `localhost:${stand.echoPort}`, `${url.username}:${url.password}`)).status === 407,
    );
    const after = await connectVia(proxy.port, `localhost:${stand.echoPort}`, `${url.username}:${url.password}`);
    t.same([after.status, after.reason], [407, 'bad-credential'], "the exited agent's credential is refused");
    after.socket.destroy();
    // Its refusals stay on its record, newest last, each naming the key that would allow it.
    const refusals = await waitFor('the refusals on the record', async () => {
      const list = ((await server.api(`/v1/agents/${id}`)).json['agent'] as { refusals: Array<Record<string, unknown>> }).refusals;
      return list.length >= 6 ? list : undefined;
    });
    t.same(
      refusals.map((r) => `${r['host']}:${r['port']}`),
      [
        `127.0.0.1:${stand.echoPort}`,
        'example.invalid:443',
        'localhost:1',
        `10.0.0.1:${stand.echoPort}`,
        '169.254.169.254:80',
        `::ffff:169.254.169.254:${stand.echoPort}`,
      ],
      'in the order the agent was refused',
    );
    t.same(refusals[1], {
      at: refusals[1]!['at'],
      host: 'example.invalid',
      port: 443,
      reason: 'domain-not-listed',
      allowWith: 'sandbox.egress.allow_domains += "example.invalid"',
    });
    t.match(refusals[2], { host: 'localhost', port: 1, reason: 'port-not-listed', allowWith: 'sandbox.egress.allow_ports += 1' });
    t.equal(new Date(String(refusals[1]!['at'])).toISOString(), refusals[1]!['at'], 'at is an ISO time');
    t.same(
      ((await server.api('/v1/agents')).json['agents'] as Array<Record<string, unknown>>).find((a) => a['id'] === id)?.['refusals'],
      undefined,
      'the list of agents leaves them out',
    );
  });

  await t.test('requests without or with a wrong credential get 407', async (t) => {
    const none = await connectVia(proxy.port, `localhost:${stand.echoPort}`);
    t.same([none.status, none.reason], [407, 'no-credential']);
    none.socket.destroy();
    const wrong = await connectVia(proxy.port, `localhost:${stand.echoPort}`, 'agt_nobody:guess');
    t.same([wrong.status, wrong.reason], [407, 'bad-credential']);
    wrong.socket.destroy();
  });

  const env = await egress.issue('agt_test1');
  const auth = credentialOf(env);

  await t.test('plain HTTP is forwarded without the proxy credential', async (t) => {
    const r = await getVia(proxy.port, `http://localhost:${stand.httpPort}/x?y=1`, auth);
    t.same(r, { status: 200, body: 'hello from /x?y=1' });
    const headers = stand.seen.at(-1)!;
    t.equal(headers['proxy-authorization'], undefined, 'the credential stays at the proxy');
    t.equal(headers['host'], `localhost:${stand.httpPort}`);
    const denied = await getVia(proxy.port, `http://127.0.0.1:${stand.httpPort}/`, auth);
    t.equal(denied.status, 403);
    t.equal(
      denied.refusal,
      `host="127.0.0.1"; port=${stand.httpPort}; rule=domain-not-listed; allow-with=sandbox.egress.allow_domains += "127.0.0.1"`,
      'the refusal names host, port, rule and key',
    );
    t.match(denied.body, /refused 127\.0\.0\.1:\d+: domain-not-listed; to allow it: sandbox\.egress\.allow_domains \+= "127\.0\.0\.1"/);
    t.equal(stand.seen.length, 1, 'a refused request never reaches the server');
  });

  await t.test('a tunnel delivers everything the server sent before it closed', async (t) => {
    // The proxy still holds the tail of the stream when the server's close arrives: several
    // large transfers make that moment certain to happen at least once.
    for (let i = 0; i < 4; i++) {
      const { socket } = await connectVia(proxy.port, `localhost:${stand.echoPort}`, auth);
      t.teardown(() => void socket.destroy());
      let bytes = 0;
      socket.on('data', (d: Buffer) => (bytes += d.length));
      socket.write('bulk');
      await new Promise((r) => socket.once('close', r));
      t.equal(bytes, BULK, `transfer ${i + 1}: no byte lost when the upstream ends`);
    }
  });

  await t.test('the allowlist changes through the API, without a restart', async (t) => {
    const before = await connectVia(proxy.port, `127.0.0.1:${stand.echoPort}`, auth);
    t.equal(before.status, 403);
    t.equal(
      before.refusal,
      `host="127.0.0.1"; port=${stand.echoPort}; rule=domain-not-listed; allow-with=sandbox.egress.allow_domains += "127.0.0.1"`,
      'a refused CONNECT names host, port, rule and key',
    );
    t.match(before.body, /^agentbox egress refused 127\.0\.0\.1:\d+: domain-not-listed; to allow it:/);
    const port = await connectVia(proxy.port, 'localhost:1', auth);
    t.match(port.refusal, /rule=port-not-listed; allow-with=sandbox\.egress\.allow_ports \+= 1$/);
    port.socket.destroy();
    before.socket.destroy();
    t.match((await server.api('/v1/sandbox/egress')).json, { source: 'manifest', allow_domains: ['localhost'], port: proxy.port });
    t.equal(
      (await server.api('/v1/sandbox/egress', { method: 'PUT', auth: false, body: { allow_domains: ['127.0.0.1'], allow_ports: [stand.echoPort] } })).status,
      401,
      'the change needs the key',
    );
    const put = await server.api('/v1/sandbox/egress', {
      method: 'PUT',
      body: { allow_domains: ['localhost', '127.0.0.1'], allow_ports: [stand.echoPort, stand.httpPort] },
    });
    t.equal(put.status, 200, JSON.stringify(put.json));
    t.match(put.json, { source: 'runtime', allow_domains: ['localhost', '127.0.0.1'] });
    const now = await connectVia(proxy.port, `127.0.0.1:${stand.echoPort}`, auth);
    t.equal(now.status, 200, 'the next request sees the new list');
    now.socket.destroy();
  });

  await t.test('malformed bodies are refused naming the field', async (t) => {
    const cases: Array<[unknown, RegExp]> = [
      [{ allow_ports: [443] }, /allow_domains/],
      [{ allow_domains: ['example.com'], allow_ports: ['https'] }, /allow_ports\/0/],
      [{ allow_domains: ['exa mple.com'], allow_ports: [443] }, /allow_domains\/0/],
      [{ allow_domains: ['example.com', '*.10.0.0.1'], allow_ports: [443] }, /allow_domains\/1.*not to an address/],
      [{ allow_domains: [], allow_ports: [70000] }, /allow_ports\/0/],
      [{ allow_domains: [], allow_ports: [], extra: 1 }, /extra|additional/],
    ];
    for (const [body, message] of cases) {
      const r = await server.api('/v1/sandbox/egress', { method: 'PUT', body });
      t.equal(r.status, 400, JSON.stringify(body));
      t.match(r.json, { error: 'ABX_ERR_VALIDATION', message }, JSON.stringify(body));
    }
    t.match(
      (await server.api('/v1/sandbox/egress')).json,
      { source: 'runtime', allow_domains: ['localhost', '127.0.0.1'] },
      'a refused change leaves the list',
    );
  });

  await t.test('each decision is an event and a metric', async (t) => {
    // The proxy reports decisions to the API as they happen, and the API appends them in turn: wait
    // until the last decision the steps above made (an address allowed after the runtime change) is in.
    const expected = [
      'allowed:exact',
      'denied:domain-not-listed',
      'denied:port-not-listed',
      'denied:no-credential',
      'denied:bad-credential',
      'allowed:address',
    ];
    const reasonsOf = (items: Array<{ data: Record<string, unknown> }>) => new Set(items.map((e) => `${e.data['decision']}:${e.data['reason']}`));
    const events = await waitFor('the decisions', async () => {
      const r = await server.api('/v1/events?kind=sandbox.egress&limit=200');
      const items = r.json['items'] as Array<{ data: Record<string, unknown> }>;
      const seen = reasonsOf(items);
      return expected.every((x) => seen.has(x)) ? items : undefined;
    });
    const reasons = reasonsOf(events);
    for (const r of expected) t.ok(reasons.has(r), r);
    t.ok(
      events.some((e) => e.data['agent'] === 'agt_test1' && e.data['host'] === '127.0.0.1' && e.data['decision'] === 'allowed'),
      'agent, host and port are recorded',
    );
    const metrics = await (await fetch(server.server.metricsUrl)).text();
    t.match(metrics, /agentbox_egress_decisions_total\{decision="denied",reason="no-credential"\} [1-9]/);
    t.match(metrics, /agentbox_egress_decisions_total\{decision="allowed",reason="exact"\} [1-9]/);
    t.notMatch(metrics, /agentbox_egress_decisions_total\{[^}]*(agt_|localhost)/, 'no agent or host as a label');
  });

  await t.test('a restarted proxy is unready until the API reconnects, then knows credentials and the runtime list again', async (t) => {
    proxy.proc.kill('SIGTERM');
    await new Promise((r) => proxy.proc.once('exit', r));
    await waitFor('the API to notice', () => !egress.status().reachable);
    const ready = await server.api('/ready', { auth: false });
    t.match(ready.json, { ready: false, missing: ['seal', 'egress'] }, '/ready names the proxy');
    const refused = await server.api('/v1/agents', { body: { name: 'no-proxy', command: process.execPath, args: ['-e', ''] } });
    t.equal(refused.status, 503, 'no agent starts without the proxy');
    t.match(refused.json['message'], /egress proxy/);
    t.equal((await server.api('/v1/sandbox/egress')).json['error'], 'ABX_ERR_EGRESS_UNAVAILABLE');
    proxy = await startProxy(root.dir, manifestFile);
    await waitFor('the reconnection', () => egress.status().reachable);
    const again = await connectVia(proxy.port, `127.0.0.1:${stand.echoPort}`, auth);
    t.equal(again.status, 200, 'the credential and the runtime list were sent again');
    again.socket.destroy();
  });
});

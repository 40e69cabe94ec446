// [policy] enforced on a real box (local-jsonl events, local-procmgr agents, the egress proxy programme, a stand-in provider):
// a spawn refused through the API, an egress CONNECT and a plain HTTP request refused by the real proxy, a provider call
// refused by the broker, an allowlist change refused — each answered naming its rule and on record as a policy.decision event.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { startStandInProvider, type StandInProvider } from '../helpers/stand-in-provider.js';
import { startBoxWithProxy } from './support/box-with-proxy.js';
import { environOf, spawnAgent } from './support/agent-processes.js';
import { waitFor, type TestServer } from './support/harness.js';

type Stored = { kind: string; source: string; data: Record<string, unknown> };

let web: http.Server;
let webPort = 0;
let provider: StandInProvider;
let box: TestServer;
let proxyPort = 0;

/** The manifest: an allowlist of localhost on the stand-in's port, a provider, and rules of every kind. */
function manifest(): string {
  return [
    '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"',
    `[sandbox.egress]\nallow_domains = ["localhost", "127.0.0.1"]\nallow_ports = [${webPort}]`,
    `[providers.stand]\nenv_var = "STAND_API_KEY"\nbase_url = "${provider.url}/v1"`,
    '[policy]\ndefault = "allow"\napproval_timeout_sec = 1',
    '[[policy.rules]]\nid = "no-rm"\naction = "spawn"\ndecision = "deny"\ncommand = "rm"',
    '[[policy.rules]]\nid = "push-asks"\naction = "spawn"\ndecision = "ask"\ncommand = "git"\nargs = ["push"]',
    '[[policy.rules]]\nid = "no-loopback-address"\naction = "egress"\ndecision = "deny"\nhost = "127.0.0.1"',
    `[[policy.rules]]\nid = "post-asks"\naction = "egress"\ndecision = "ask"\nhost = "localhost"\nmethod = "POST"\npath = "/push/*"`,
    '[[policy.rules]]\nid = "cheap-no-stand"\naction = "provider"\ndecision = "deny"\nprovider = "stand"\nagent = "cheap-*"',
    '[[policy.rules]]\nid = "no-internal"\naction = "egress-change"\ndecision = "deny"\nhost = "*.internal.example"',
    '[[policy.rules]]\nid = "no-reviewer"\naction = "spawn"\ndecision = "deny"\nprofile = "reviewer"',
    '[agents.profiles.reviewer]\ncommand = "/bin/true"',
    '[agents.profiles.coder]\ncommand = "/bin/true"',
  ].join('\n');
}

t.before(async () => {
  web = http.createServer((req, res) => res.end(`hello from ${req.method} ${req.url}`));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as net.AddressInfo).port;
  provider = await startStandInProvider();
  const started = await startBoxWithProxy(manifest(), { STAND_API_KEY: 'sk-stand-in-real-key-0123456789abcdef' });
  t.teardown(() => started.close());
  ({ box, proxyPort } = started);
});
t.teardown(async () => {
  await provider?.close();
  web?.close();
});

const policyEvents = async (): Promise<Stored[]> =>
  ((await box.api('/v1/events?limit=1000')).json['items'] as Stored[]).filter((e) => e.kind === 'policy.decision');

t.test('a spawn: a deny and an ask are refused through the API, naming the rule, and recorded', async (t) => {
  const rm = await box.api('/v1/agents', { body: { name: 'cleaner', command: '/bin/rm', args: ['-rf', 'x'] } });
  t.equal(rm.status, 403);
  t.equal(rm.json['error'], 'ABX_ERR_POLICY_DENIED');
  t.match(rm.json['message'], /^refused by \[policy\]: rule 0 \("no-rm"\) denies \(matched command=rm\) \(policy sha256:/);
  const pushAuto = await box.api('/v1/agents', { body: { name: 'pusher', command: 'git', args: ['push', 'origin'] } });
  t.match(pushAuto, { status: 403, json: { error: 'ABX_ERR_POLICY_DENIED', message: /rule 1 \("push-asks"\) asks for approval; this agent is autonomous/ } });
  const pushSupervised = await box.api('/v1/agents', { body: { name: 'pusher', command: 'git', args: ['push'], autonomy: 'supervised' } });
  t.match(pushSupervised, {
    status: 403,
    json: { message: /rule 1 \("push-asks"\) asks for approval; timed out \(request apr_[0-9a-f]+\): no decision within 1 s/ },
  });
  t.match(
    await box.api('/v1/agents', { body: { name: 'x', command: '/bin/true', args: [], autonomy: 'reckless' } }),
    { status: 400, json: { error: 'ABX_ERR_VALIDATION', message: /autonomy/ } },
    'an unknown autonomy is refused',
  );
  t.equal(((await box.api('/v1/agents')).json['agents'] as unknown[]).length, 0, 'nothing was started');
  const events = await waitFor('three spawn decisions', async () => {
    const all = (await policyEvents()).filter((e) => e.data['action'] === 'spawn');
    return all.length >= 3 ? all : undefined;
  });
  t.match(events[0], {
    source: 'policy',
    data: {
      action: 'spawn',
      subject: { name: 'cleaner', command: '/bin/rm', args: ['-rf', 'x'], cwd: '.' },
      agent: null,
      rule: { index: 0, id: 'no-rm' },
      decision: 'deny',
      outcome: 'denied',
      autonomy: 'autonomous',
      by: { kind: 'api-key' },
    },
  });
  t.match(events[0]!.data['policy'], /^sha256:[0-9a-f]{64}$/);
  t.match(events[1], {
    data: {
      rule: { index: 1, id: 'push-asks' },
      decision: 'ask',
      outcome: 'denied',
      reason: 'rule 1 ("push-asks") asks for approval; this agent is autonomous',
    },
  });
  t.match(events[2], { data: { autonomy: 'supervised', reason: /^rule 1 \("push-asks"\) asks for approval; timed out/ } });
});

t.test('a spawn by profile: a profile rule refuses one profile, another profile and the same command ad hoc start', async (t) => {
  const reviewer = await box.api('/v1/agents', { body: { profile: 'reviewer' } });
  t.match(reviewer, {
    status: 403,
    json: { error: 'ABX_ERR_POLICY_DENIED', message: /^refused by \[policy\]: rule 6 \("no-reviewer"\) denies \(matched profile=reviewer\)/ },
  });
  const renamed = await box.api('/v1/agents', { body: { profile: 'reviewer', name: 'someone-else' } });
  t.equal(renamed.status, 403, 'naming the agent otherwise does not step round a profile rule');
  const coder = await box.api('/v1/agents', { body: { profile: 'coder' } });
  t.equal(coder.status, 201, JSON.stringify(coder.json));
  t.match(coder.json['agent'], { name: 'coder', profile: 'coder' });
  const adHoc = await box.api('/v1/agents', { body: { name: 'reviewer', command: '/bin/true' } });
  t.equal(adHoc.status, 201, 'an ad-hoc spawn has no profile: the profile rule does not match it');
  const denied = await waitFor('the profile decision on record', async () =>
    (await policyEvents()).find((e) => e.data['action'] === 'spawn' && (e.data['subject'] as { profile?: string }).profile === 'reviewer'),
  );
  t.match(denied, {
    data: {
      subject: { name: 'reviewer', command: '/bin/true', profile: 'reviewer' },
      rule: { index: 6, id: 'no-reviewer' },
      decision: 'deny',
      outcome: 'denied',
    },
  });
});

t.test('egress: a CONNECT and a plain HTTP request refused by the real proxy, an allowed one through', async (t) => {
  const agent = await spawnAgent(box, 'fetcher', '/bin/sleep', ['60']);
  t.teardown(() => box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' }));
  const proxyUrl = new URL((await environOf(agent.pid))['HTTP_PROXY']!);
  const auth = `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`;

  const denied = await connect(proxyPort, `127.0.0.1:${webPort}`, auth);
  t.equal(denied.status, 403, 'the allowlist admits 127.0.0.1, the policy refuses it');
  t.equal(denied.reason, 'policy-denied');
  t.match(
    denied.refusal,
    /rule=policy-denied; allow-with=a \[policy\] rule that allows it .*; policy="rule 2 \(\\"no-loopback-address\\"\) denies \(matched host=127\.0\.0\.1\)"/,
  );
  t.match(denied.body, /^agentbox egress refused 127\.0\.0\.1:\d+: policy-denied: rule 2 \("no-loopback-address"\) denies \(matched host=127\.0\.0\.1\)/);
  const allowed = await connect(proxyPort, `localhost:${webPort}`, auth);
  t.equal(allowed.status, 200, 'a CONNECT the policy has nothing against');

  const get = await request(proxyPort, `http://localhost:${webPort}/push/x`, 'GET', auth);
  t.same([get.status, get.body], [200, `hello from GET /push/x`], 'a GET passes: the rule asks about POST');
  const post = await request(proxyPort, `http://localhost:${webPort}/push/x`, 'POST', auth);
  t.equal(post.status, 403, 'a POST to /push/* asks, and the agent is autonomous');
  t.match(post.refusal, /policy="rule 3 \(\\"post-asks\\"\) asks for approval; this agent is autonomous"/);
  const escaped = await request(proxyPort, `http://localhost:${webPort}/p%75sh/x`, 'POST', auth);
  t.equal(escaped.status, 403, 'a percent-escaped letter does not step round the path');

  const events = await waitFor('the egress decisions on record', async () => {
    const all = (await policyEvents()).filter((e) => e.data['action'] === 'egress');
    return all.length >= 3 ? all : undefined;
  });
  t.match(events[0], {
    source: 'egress',
    data: {
      action: 'egress',
      subject: { host: '127.0.0.1', port: webPort },
      agent: agent.id,
      rule: { index: 2, id: 'no-loopback-address' },
      decision: 'deny',
      outcome: 'denied',
      autonomy: 'autonomous',
    },
  });
  t.match(events[0]!.data['policy'], /^sha256:[0-9a-f]{64}$/);
  t.match(events[1], {
    data: {
      subject: { host: 'localhost', method: 'POST', path: '/push/x' },
      rule: { index: 3 },
      decision: 'ask',
      reason: 'rule 3 ("post-asks") asks for approval; this agent is autonomous',
    },
  });
  const egressEvents = (await box.api('/v1/events?limit=1000&kind=sandbox.egress')).json['items'] as Stored[];
  t.ok(
    egressEvents.some((e) => e.data['reason'] === 'policy-denied' && (e.data['policy'] as Record<string, unknown>)?.['decision'] === 'deny'),
    'the egress decision carries the policy rule',
  );
  const refusals = ((await box.api(`/v1/agents/${agent.id}`)).json['agent'] as { refusals: Array<Record<string, unknown>> }).refusals;
  t.match(refusals[0], { host: '127.0.0.1', reason: 'policy-denied' }, "on the agent's record");
});

t.test("egress: a supervised agent's ask is held, and refused when nobody decides (approvals.test.ts has the decisions)", async (t) => {
  const spawned = await box.api('/v1/agents', { body: { name: 'careful', command: '/bin/sleep', args: ['60'], autonomy: 'supervised' } });
  t.equal(spawned.status, 201);
  const agent = spawned.json['agent'] as { id: string; pid: number };
  t.teardown(() => box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' }));
  const proxyUrl = new URL((await environOf(agent.pid))['HTTP_PROXY']!);
  const post = await request(
    proxyPort,
    `http://localhost:${webPort}/push/y`,
    'POST',
    `Basic ${Buffer.from(`${proxyUrl.username}:${proxyUrl.password}`).toString('base64')}`,
  );
  t.equal(post.status, 403);
  t.match(post.refusal, /asks for approval; timed out \(request apr_[0-9a-f]+\): no decision within 1 s/);
});

t.test('a provider call: refused by the broker for one agent, forwarded for another', async (t) => {
  const cheap = await spawnAgent(box, 'cheap-1', '/bin/sleep', ['60']);
  const lead = await spawnAgent(box, 'lead', '/bin/sleep', ['60']);
  t.teardown(() => Promise.all([cheap, lead].map((a) => box.api(`/v1/agents/${a.id}?graceMs=0`, { method: 'DELETE' }))));
  const call = async (pid: number) => {
    const token = (await environOf(pid))['AGENTBOX_TOKEN']!;
    const res = await fetch(`http://127.0.0.1:${box.server.apiPort}/v1/providers/stand/models`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const before = provider.arrivals.length;
  const refused = await call(cheap.pid);
  t.equal(refused.status, 403);
  t.match(refused.body, { error: 'ABX_ERR_POLICY_DENIED', message: /rule 4 \("cheap-no-stand"\) denies \(matched agent=cheap-\*, provider=stand\)/ });
  t.equal(provider.arrivals.length, before, 'the refused call never reached the provider');
  t.equal((await call(lead.pid)).status, 200, 'another agent is forwarded');
  const events = await waitFor('the provider decision on record', async () => {
    const all = (await policyEvents()).filter((e) => e.data['action'] === 'provider');
    return all.length >= 1 ? all : undefined;
  });
  t.equal(events.length, 1, 'allowed calls are not recorded one by one');
  t.match(events[0], {
    source: 'broker',
    data: {
      subject: { provider: 'stand' },
      agent: cheap.id,
      rule: { index: 4, id: 'cheap-no-stand' },
      outcome: 'denied',
      by: { kind: 'agent', agent: cheap.id, name: 'cheap-1' },
    },
  });
});

t.test('an allowlist change adding a denied host is refused; one adding nothing denied goes through', async (t) => {
  const refused = await box.api('/v1/sandbox/egress', { method: 'PUT', body: { allow_domains: ['localhost', 'db.internal.example'], allow_ports: [webPort] } });
  t.match(refused, { status: 403, json: { error: 'ABX_ERR_POLICY_DENIED', message: /rule 5 \("no-internal"\) denies/ } });
  t.match((await box.api('/v1/sandbox/egress')).json, { source: 'manifest', allow_domains: ['localhost', '127.0.0.1'] }, 'the list did not change');
  t.equal(
    (await box.api('/v1/sandbox/egress', { method: 'PUT', body: { allow_domains: ['localhost', 'registry.npmjs.org'], allow_ports: [webPort] } })).status,
    200,
  );
  // The decision is appended beside the answer, not before it: wait for it rather than race it.
  const event = await waitFor('the egress-change decision on record', async () => (await policyEvents()).find((e) => e.data['action'] === 'egress-change'));
  t.match(event, { source: 'policy', data: { subject: { host: 'db.internal.example' }, rule: { index: 5 }, outcome: 'denied', by: { kind: 'api-key' } } });
});

/** CONNECT through the proxy; the status, the X-Agentbox-Egress reason, the refusal header and the body. */
function connect(port: number, target: string, auth: string): Promise<{ status: number; reason?: string; refusal?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\r\n\r\n')) return;
      const status = Number(got.split(' ')[1]);
      if (status !== 200 && !s.readableEnded) {
        s.once('end', () => finish());
        return;
      }
      finish();
    });
    const finish = (): void => {
      s.removeAllListeners('data');
      s.destroy();
      const reason = /x-agentbox-egress: (\S+)/i.exec(got)?.[1];
      const refusal = /x-agentbox-refusal: ([^\r]+)/i.exec(got)?.[1];
      resolve({
        status: Number(got.split(' ')[1]),
        ...(reason ? { reason } : {}),
        ...(refusal ? { refusal } : {}),
        body: got.slice(got.indexOf('\r\n\r\n') + 4),
      });
    };
    s.once('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: ${auth}\r\n\r\n`);
  });
}

/** A plain HTTP request in absolute form through the proxy. */
function request(port: number, url: string, method: string, auth: string): Promise<{ status: number; body: string; refusal?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers: { host: new URL(url).host, 'proxy-authorization': auth } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      const refusal = res.headers['x-agentbox-refusal'];
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...(typeof refusal === 'string' ? { refusal } : {}) }));
    });
    req.once('error', reject);
    req.end();
  });
}

// The agents' own listener on the real API with real agent processes: agents are told it instead of
// the operator's port; it serves agent tokens only; an agent's sign-in attempts never spend the
// operator's budget; an idle flood of it is capped and leaves the API answering; it closes with the app.
import t from 'tap';
import net from 'node:net';
import { writeFile } from 'node:fs/promises';
import { AGENT_MAX_CONNECTIONS } from '../../management-api/src/http/agent-listener.js';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';
import { environOf, spawnAgent, type SpawnedAgent } from './support/agent-processes.js';

const LOCAL = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: LOCAL });
  await writeFile(box.paths.sealFile, 'sealed\n');
  await waitFor('the box to be ready', async () => (await box.api('/ready', { auth: false })).status === 200);
});
t.teardown(async () => box?.close());

type Agent = SpawnedAgent;
const spawn = (name: string, command: string, args: string[]): Promise<Agent> => spawnAgent(box, name, command, args);
const environ = environOf;
const finished = async (id: string): Promise<string> => {
  await waitFor('the agent to finish', async () => ((await box.api(`/v1/agents/${id}`)).json['agent'] as Agent | undefined)?.state !== 'running', 20_000);
  return ((await box.api(`/v1/agents/${id}/output`)).json['chunks'] as Array<{ stream: string; text: string }>)
    .filter((c) => c.stream === 'stdout')
    .map((c) => c.text)
    .join('');
};

/** The URL and token a live agent finds in its environment. */
let agentUrl: string;
let token: string;
let sleeper: Agent;
t.before(async () => {
  sleeper = await spawn('sleeper', '/bin/sleep', ['600']);
  // Until the exec, /proc shows the parent's environment.
  const env = await waitFor('the agent to run with its environment', async () =>
    (await environ(sleeper.pid))['AGENTBOX_TOKEN'] ? environ(sleeper.pid) : undefined,
  );
  agentUrl = env['AGENTBOX_API_URL'] ?? '';
  token = env['AGENTBOX_TOKEN'] ?? '';
});

t.test("agents are told the agents' listener, a port apart from the operator's", async (t) => {
  const url = new URL(agentUrl);
  t.equal(url.hostname, '127.0.0.1');
  t.not(Number(url.port), box.server.apiPort, 'not the operator port');
  t.equal((await box.api('/v1/meta')).json['agentApiUrl'], agentUrl, '/v1/meta shows it');
});

t.test("the agents' listener serves agent tokens, and refuses the API key, sign-in, the dashboard and /health", async (t) => {
  const own = await fetch(`${agentUrl}/v1/agents/${sleeper.id}`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(own.status, 200, "an agent's own record, with its token");
  const operatorCall = await fetch(`${agentUrl}/v1/agents`, { headers: { authorization: `Bearer ${box.key}` } });
  t.match(
    { status: operatorCall.status, body: await operatorCall.json() },
    { status: 403, body: { error: 'ABX_ERR_AGENT_LISTENER' } },
    'the API key is refused there',
  );
  const origin = new URL(agentUrl).origin;
  const signIn = await fetch(`${agentUrl}/ui/session`, {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ apiKey: box.key }),
  });
  t.match(
    { status: signIn.status, body: await signIn.json() },
    { status: 403, body: { error: 'ABX_ERR_AGENT_LISTENER' } },
    'sign-in is refused there, even with the right key',
  );
  t.equal(signIn.headers.get('set-cookie'), null, 'no session cookie');
  for (const p of ['/ui/', '/ui/session', '/health', '/docs/json', '/v1/nowhere']) {
    const res = await fetch(agentUrl + p);
    t.match({ status: res.status, body: await res.json() }, { status: 403, body: { error: 'ABX_ERR_AGENT_LISTENER' } }, `${p} is refused there`);
  }
  for (const p of ['/livez', '/ready']) t.equal((await fetch(agentUrl + p)).status, 200, `${p} answers there`);
  const scope = await fetch(`${agentUrl}/v1/agents`, { headers: { authorization: `Bearer ${token}` } });
  t.match(
    { status: scope.status, body: await scope.json() },
    { status: 403, body: { error: 'ABX_ERR_AGENT_SCOPE' } },
    'agent scopes apply there as on the operator port',
  );
});

t.test("an agent hammering sign-in never spends the operator's sign-in budget", async (t) => {
  // 40 wrong keys, past the 30 a minute one address may try, sent the way an agent would: to the URL it is given.
  const script = `(async () => { const u = process.env.AGENTBOX_API_URL; const seen = {}; for (let i = 0; i < 40; i++) { const r = await fetch(u + '/ui/session', { method: 'POST', headers: { origin: new URL(u).origin, 'content-type': 'application/json' }, body: JSON.stringify({ apiKey: 'guess-' + i }) }); seen[r.status] = (seen[r.status] || 0) + 1; } console.log(JSON.stringify(seen)); })()`;
  const hammer = await spawn('hammer', process.execPath, ['-e', script]);
  const seen = JSON.parse((await finished(hammer.id)).trim() || '{}') as Record<string, number>;
  t.same(seen, { 403: 40 }, 'every attempt refused by the listener, none checked against the key');
  const origin = new URL(box.server.apiUrl).origin;
  const wrong = await box.api('/ui/session', { auth: false, headers: { origin }, body: { apiKey: 'still-wrong' } });
  t.equal(wrong.status, 401, 'the operator is still answered (401 for a wrong key, not 429)');
  const right = await box.api('/ui/session', { auth: false, headers: { origin }, body: { apiKey: box.key } });
  t.equal(right.status, 201, 'and signs in');
});

t.test("an idle flood of the agents' listener is capped; the API and /ready keep answering", async (t) => {
  const { port } = new URL(agentUrl);
  const flood = AGENT_MAX_CONNECTIONS + 200;
  const sockets: net.Socket[] = [];
  let closedByServer = 0;
  t.teardown(() => {
    for (const s of sockets) s.destroy();
  });
  await Promise.all(
    Array.from(
      { length: flood },
      () =>
        new Promise<void>((resolve) => {
          const s = net.connect(Number(port), '127.0.0.1', () => resolve());
          s.on('error', () => resolve());
          s.on('close', () => (closedByServer += 1));
          sockets.push(s);
        }),
    ),
  );
  await waitFor('the excess connections to be closed', () => closedByServer >= flood - AGENT_MAX_CONNECTIONS, 5_000);
  t.ok(
    box.server.app.agentbox.agentListener.connections() <= AGENT_MAX_CONNECTIONS,
    `at most ${AGENT_MAX_CONNECTIONS} held (${box.server.app.agentbox.agentListener.connections()})`,
  );
  t.equal((await box.api('/ready', { auth: false })).status, 200, '/ready answers 200 on the operator port');
  t.equal((await box.api('/v1/meta')).status, 200, 'the operator is answered');
  // Idle connections are closed by the listener itself (no request head within its headers timeout).
  await waitFor('the idle connections to be closed', () => closedByServer === flood, 20_000);
  t.equal(box.server.app.agentbox.agentListener.connections(), 0, 'every idle connection closed');
  const after = await fetch(`${agentUrl}/v1/agents/${sleeper.id}`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(after.status, 200, 'agents are answered again once the flood is gone');
});

t.test("closing the app releases the agents' port", async (t) => {
  const other = await startTestServer();
  const url = other.server.app.agentbox.agentListener.url();
  t.ok(url, 'it listens');
  t.equal((await fetch(`${url}/livez`)).status, 200);
  await other.close();
  const refused = await new Promise<string>((resolve) => {
    const s = net.connect(Number(new URL(url!).port), '127.0.0.1', () => {
      s.destroy();
      resolve('connected');
    });
    s.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
  t.equal(refused, 'ECONNREFUSED', 'nothing listens there after close');
});

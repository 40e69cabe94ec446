// Agent tokens on the real API with real agent processes: what each route family allows an agent and
// refuses it (403 naming the scope), and the token refused once its agent has exited.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({
    toml: '[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n',
  });
});
t.teardown(() => box?.close());

type Agent = { id: string; pid: number; state: string };
type Bead = { id: string; claimedBy?: string; status: string };
const spawn = async (name: string, args: string[] = ['600'], command = '/bin/sleep'): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body: { name, command, args } });
  if (res.status !== 201) throw new Error(`spawn failed: ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';
const ids = (json: Record<string, unknown>): string[] => (json['items'] as Bead[]).map((b) => b.id);
const SCOPE = /is outside this agent's scope: an agent token reaches only its own beads/;

let alpha: Agent;
let beta: Agent;
let ta: string;
let tb: string;
t.before(async () => {
  alpha = await spawn('alpha');
  beta = await spawn('beta');
  ta = await tokenOf(alpha.pid);
  tb = await tokenOf(beta.pid);
});

t.test('every route declares what an agent may do', async (t) => {
  t.same(box.logs.events('AgentAccessUndeclared'), [], 'no route was registered without config.agent');
  t.not(ta, tb, 'each agent has a token of its own');
});

t.test('beads: its own (created by it or claimed by its name), nobody else’s', async (t) => {
  const mine = await box.api('/v1/beads', { auth: ta, body: { title: 'alpha made this' } });
  t.equal(mine.status, 201, 'an agent creates a bead');
  const mineId = (mine.json['bead'] as Bead).id;
  const operators = (await box.api('/v1/beads', { body: { title: 'operator work' } })).json['bead'] as Bead;
  const assigned = (await box.api('/v1/beads', { body: { title: 'for alpha' } })).json['bead'] as Bead;
  t.equal(
    (await box.api(`/v1/beads/${assigned.id}/claim`, { body: { claimant: 'alpha' } })).status,
    200,
    'the operator assigns a bead by claiming it in the agent’s name',
  );

  t.equal((await box.api(`/v1/beads/${mineId}`, { auth: ta })).status, 200, 'reads a bead it created');
  t.equal((await box.api(`/v1/beads/${assigned.id}`, { auth: ta })).status, 200, 'reads a bead assigned to it');
  const foreign = await box.api(`/v1/beads/${operators.id}`, { auth: ta });
  t.match(foreign, { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE', message: SCOPE } }, 'another bead is refused, naming the scope');
  t.match(await box.api('/v1/beads/no-such-bead', { auth: ta }), { status: 403 }, 'an unknown id looks the same as a foreign one');
  t.match(await box.api(`/v1/beads/${mineId}`, { auth: tb }), { status: 403 }, 'beta cannot read alpha’s bead');

  t.same(ids((await box.api('/v1/beads', { auth: ta })).json).sort(), [mineId, assigned.id].sort(), 'the list holds only its own beads');
  t.same(ids((await box.api('/v1/beads/ready', { auth: ta })).json), [mineId], 'so does the ready queue');
  t.same(ids((await box.api('/v1/beads', { auth: tb })).json), [], 'beta sees none');
  t.equal(ids((await box.api('/v1/beads')).json).length, 3, 'the operator sees all');

  t.match(await box.api(`/v1/beads/${mineId}/claim`, { auth: ta, body: { claimant: 'beta' } }), {
    status: 403,
    json: { message: /an agent claims as its name, "alpha"/ },
  });
  t.match(
    await box.api(`/v1/beads/${operators.id}/claim`, { auth: ta, body: { claimant: 'alpha' } }),
    { status: 403 },
    'it cannot claim a bead that is not its own',
  );
  t.match(await box.api(`/v1/beads/${mineId}/claim`, { auth: ta, body: { claimant: 'alpha' } }), { status: 200, json: { claimed: true } });
  t.match(await box.api('/v1/beads', { auth: ta, body: { title: 'sub', parentId: operators.id } }), { status: 403 }, 'no child under a foreign epic');
  t.match(await box.api('/v1/beads', { auth: ta, body: { title: 'after', dependsOn: [operators.id] } }), { status: 403 }, 'no dependency on a foreign bead');
  const epic = (await box.api('/v1/beads', { auth: ta, body: { kind: 'epic', title: 'alpha plan' } })).json['bead'] as Bead;
  t.equal(
    (await box.api('/v1/beads', { auth: ta, body: { title: 'sub', parentId: epic.id, dependsOn: [mineId] } })).status,
    201,
    'children and dependencies among its own beads',
  );
  t.match(await box.api(`/v1/beads/${operators.id}/close`, { auth: ta, body: { outcome: 'success' } }), { status: 403 });
  t.match(await box.api(`/v1/beads/${assigned.id}/close`, { auth: ta, body: { outcome: 'success' } }), { status: 200, json: { bead: { status: 'closed' } } });
});

t.test('memory: agent.<name> and agent.<name>.* only', async (t) => {
  // The slot is off: a request inside the scope reaches it (503), one outside is refused first (403).
  t.match(await box.api('/v1/memory/agent.alpha', { auth: ta, body: { text: 'x' } }), { status: 503, json: { error: 'ABX_ERR_ADAPTER_OFF' } });
  t.match(await box.api('/v1/memory/agent.alpha.notes/search', { auth: ta, body: { text: 'x', k: 1 } }), { status: 503 });
  t.match(await box.api('/v1/memory/agent.alpha/m1', { auth: ta }), { status: 503 });
  t.match(await box.api('/v1/memory/agent.beta', { auth: ta }), {
    status: 403,
    json: { error: 'ABX_ERR_AGENT_SCOPE', message: /this agent's are agent\.alpha and agent\.alpha\.\*/ },
  });
  t.match(await box.api('/v1/memory/agent.alphabet/m1', { auth: ta, method: 'DELETE' }), { status: 403 }, 'a longer name is another agent');
  t.match(await box.api('/v1/memory/shared', { auth: ta }), { status: 403 });
});

t.test('events: append as itself; reading the log is refused', async (t) => {
  const appended = await box.api('/v1/events', { auth: ta, body: { kind: 'agent.note', data: { n: 1 } } });
  t.match(appended, { status: 201, json: { event: { kind: 'agent.note', source: `agent:${alpha.id}` } } }, 'the source is the agent');
  t.match(
    await box.api('/v1/events', { auth: ta, body: { kind: 'agent.note', source: 'api' } }),
    { status: 403, json: { message: /an agent appends as agent:/ } },
    'no other source',
  );
  t.equal(
    (await box.api('/v1/events', { auth: ta, body: { kind: 'agent.note', source: `agent:${alpha.id}` } })).status,
    201,
    'its own source may be spelt out',
  );
  t.match(await box.api('/v1/events', { auth: ta }), { status: 403 });
  t.match(await box.api('/v1/events/stream', { auth: ta }), { status: 403 });
  t.match(
    await box.api('/v1/events/checkpoint', { auth: ta, method: 'POST' }),
    { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } },
    'nor may it have the box sign a checkpoint',
  );
});

t.test('agents: its own record and output; nothing else', async (t) => {
  t.match(await box.api(`/v1/agents/${alpha.id}`, { auth: ta }), { status: 200, json: { agent: { id: alpha.id, name: 'alpha' } } });
  t.match(await box.api(`/v1/agents/${alpha.id}/output`, { auth: ta }), { status: 200, json: { chunks: [] } });
  t.match(await box.api(`/v1/agents/${beta.id}`, { auth: ta }), { status: 403 });
  t.match(await box.api(`/v1/agents/${beta.id}/output`, { auth: ta }), { status: 403 });
  t.match(await box.api('/v1/agents', { auth: ta }), { status: 403 });
  t.match(await box.api('/v1/agents', { auth: ta, body: { name: 'child', command: '/bin/true' } }), {
    status: 403,
    json: { message: /POST \/v1\/agents is outside/ },
  });
  t.match(await box.api(`/v1/agents/${beta.id}`, { auth: ta, method: 'DELETE' }), { status: 403 });
  t.match(await box.api(`/v1/agents/${alpha.id}`, { auth: ta, method: 'DELETE' }), { status: 403 });
});

t.test('pods, meta and docs are the operator’s; probes stay public', async (t) => {
  for (const path of ['/v1/pods/notes.txt', '/v1/meta', '/docs/json'])
    t.match(await box.api(path, { auth: ta }), { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } }, path);
  t.match(await box.api('/v1/pods/notes.txt', { auth: ta, method: 'PUT', rawBody: 'x', headers: { 'content-type': 'text/plain' } }), { status: 403 });
  t.equal((await box.api('/livez', { auth: ta })).status, 200);
  t.match(await box.api('/v1/beads', { auth: false, body: { title: 'x' } }), { status: 401, json: { error: 'ABX_ERR_AUTH_REQUIRED' } }, 'without a token: 401');
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, /agentbox_agent_scope_refusals_total\{route="\/v1\/beads\/:id"\} [1-9]/, 'refusals are counted by route template');
});

t.test('a token stops working when its agent exits or is terminated', async (t) => {
  const brief = await spawn('brief', ['-c', 'echo "$AGENTBOX_TOKEN"'], '/bin/sh');
  const done = await waitFor('the agent to exit', async () => {
    const a = (await box.api(`/v1/agents/${brief.id}`)).json['agent'] as Agent;
    return a.state === 'exited' ? a : undefined;
  });
  t.equal(done.state, 'exited');
  const chunks = (await box.api(`/v1/agents/${brief.id}/output`)).json['chunks'] as Array<{ text: string }>;
  const token = chunks
    .map((c) => c.text)
    .join('')
    .trim();
  t.match(token, /^abx_agent_/);
  t.match(await box.api('/v1/events', { auth: token, body: { kind: 'agent.note' } }), {
    status: 401,
    json: { error: 'ABX_ERR_AUTH_INVALID', message: /unknown or revoked/ },
  });
  t.match(await box.api(`/v1/agents/${brief.id}`, { auth: token }), { status: 401 });

  t.equal((await box.api(`/v1/agents/${beta.id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  t.match(await box.api('/v1/events', { auth: tb, body: { kind: 'agent.note' } }), { status: 401 }, 'terminated: refused');
  t.equal((await box.api('/v1/events', { auth: ta, body: { kind: 'agent.note' } })).status, 201, 'the other agent’s token still works');
});

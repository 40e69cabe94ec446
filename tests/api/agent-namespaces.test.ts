// Memory namespaces cannot collide between agents: names hold no dot, so `agent.<name>.<more>` is one agent's alone.
// Real API, real agent processes and tokens, a real local-ruvector memory slot.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { AdapterInputError } from '../../management-api/src/adapter-errors.js';
import { checkSpawnRequest } from '../../management-api/src/adapters/orchestrator/spawn-request.js';
import { ownsNamespace } from '../../management-api/src/auth/agent-scopes.js';
import { startTestServer, type TestServer } from './support/harness.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "local-ruvector"\nevents = "off"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

type Agent = { id: string; pid: number };
const spawn = (name: string) => box.api('/v1/agents', { body: { name, command: '/bin/sleep', args: ['600'] } });
const tokenOf = async (pid: number): Promise<string> => /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? '';

t.test('a name with a dot is refused at spawn, by the route and by the orchestrator alike', async (t) => {
  for (const name of ['team.x', 'team.', 'a.b.c', 'v1.2']) {
    const res = await spawn(name);
    t.match(res, { status: 400, json: { error: 'ABX_ERR_VALIDATION' } }, `${name} refused`);
    t.throws(() => checkSpawnRequest({ name, command: '/bin/true', args: [] }), AdapterInputError, `${name}: the adapter refuses it without a route in front`);
  }
  t.same(
    ((await box.api('/v1/agents')).json['agents'] as Array<{ name: string }>).filter((a) => a.name.includes('.')),
    [],
    'no dotted agent runs',
  );
  t.notOk(
    ownsNamespace({ id: 'agt_x', name: 'team.x', createdBeads: new Set() } as Parameters<typeof ownsNamespace>[0], 'agent.team.x'),
    'a dotted name, should one appear, owns nothing',
  );
});

t.test('a name in the form of a snapshot id is refused: `agentbox cp snp_…:PATH` reads the snapshot', async (t) => {
  for (const name of ['snp_AbCdEf012345', 'snp_------------', 'snp_a_b-c_d-e_f1']) {
    const res = await spawn(name);
    t.match(res, { status: 400, json: { message: /form of a snapshot id/ } }, `${name} refused by the API`);
    t.throws(() => checkSpawnRequest({ name, command: '/bin/true', args: [] }), /form of a snapshot id/, `${name}: the adapter refuses it`);
  }
  // Near misses are names like any other.
  for (const name of ['snp_short', 'snp_AbCdEf0123456', 'snp-AbCdEf012345', 'xsnp_AbCdEf012345']) {
    t.doesNotThrow(() => checkSpawnRequest({ name, command: '/bin/true', args: [] }), `${name} allowed`);
  }
  const started = await spawn('snp_AbCdEf01234');
  t.equal(started.status, 201, 'one character short of an id: spawned');
  if (started.status === 201) await box.api(`/v1/agents/${(started.json['agent'] as Agent).id}?graceMs=0`, { method: 'DELETE' });
});

t.test("agent team reaches agent.team and agent.team.*, and no other agent's data", async (t) => {
  const team = (await spawn('team')).json['agent'] as Agent;
  const teamX = (await spawn('team-x')).json['agent'] as Agent;
  const tTeam = await tokenOf(team.pid);
  const tTeamX = await tokenOf(teamX.pid);
  // Data the other agent keeps in its own namespaces.
  t.equal((await box.api('/v1/memory/agent.team-x', { auth: tTeamX, body: { id: 'm1', text: 'team-x private note' } })).status, 201);
  t.equal((await box.api('/v1/memory/agent.team-x.notes', { auth: tTeamX, body: { id: 'm2', text: 'team-x sub note' } })).status, 201);
  for (const ns of ['agent.team-x', 'agent.team-x.notes', 'agent.team_x', 'agent.teamx']) {
    t.match(await box.api(`/v1/memory/${ns}/m1`, { auth: tTeam }), { status: 403, json: { error: 'ABX_ERR_AGENT_SCOPE' } }, `team cannot read ${ns}`);
    t.match(await box.api(`/v1/memory/${ns}`, { auth: tTeam, body: { id: 'm1', text: 'overwritten by team' } }), { status: 403 }, `team cannot write ${ns}`);
    t.match(await box.api(`/v1/memory/${ns}/m1`, { auth: tTeam, method: 'DELETE' }), { status: 403 }, `team cannot delete in ${ns}`);
  }
  t.match(await box.api('/v1/memory/agent.team-x/m1'), { status: 200, json: { memory: { text: 'team-x private note' } } }, 'its data is untouched');
  // team's own: agent.team and below it; agent.team.x is team's, since no agent team.x can exist.
  t.equal((await box.api('/v1/memory/agent.team.x', { auth: tTeam, body: { id: 'n1', text: 'team sub note' } })).status, 201);
  t.match(await box.api('/v1/memory/agent.team.x/n1', { auth: tTeam }), { status: 200, json: { memory: { text: 'team sub note' } } });
  t.match(await box.api('/v1/memory/agent.team.x/n1', { auth: tTeamX }), { status: 403 }, 'team-x cannot read team’s sub-namespace');
  t.match(await box.api('/v1/memory/agent.team', { auth: tTeamX }), { status: 403 }, 'nor team’s own');
});

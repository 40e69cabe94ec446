// Checkpoints on a real box with a real agent: a spawn's `checkpoints` snapshots its working directory on a timer while it runs,
// keeps the newest few and deletes the older ones it made (never a snapshot of anyone else), stops when the agent ends; a profile's
// checkpoints, replaced by a request's own; the plan and the checkpoints kept on the agent's record; bad requests refused.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { startTestServer, waitFor, type TestServer } from './support/harness.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({
    toml: [
      '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"',
      '[agents.profiles.keeper]\ncommand = "/bin/sh"\nargs = ["-c", "echo x > f; exec sleep 60"]\ncheckpoints = { every_sec = 1, keep = 1 }\n',
    ].join('\n'),
  });
});
t.teardown(() => box?.close());

type Snapshot = { id: string; label?: string; createdAt: string; agent: { id: string } };
const snapshotsOf = async (agentId: string): Promise<Snapshot[]> => (await box.api(`/v1/snapshots?agent=${agentId}`)).json['snapshots'] as Snapshot[];
/** The checkpoints the box said it made of `agentId`, in the order it made them. */
const made = (agentId: string): string[] =>
  box.logs
    .events('SnapshotCreated')
    .filter((e) => e['checkpoint'] === true && e['agent'] === agentId)
    .map((e) => String(e['snapshot']));

t.test('a checkpoint every second, the two newest kept, none once the agent ended', async (t) => {
  const res = await box.api('/v1/agents', {
    body: {
      name: 'wanderer',
      command: '/bin/sh',
      args: ['-c', 'i=0; while :; do i=$((i+1)); echo $i > step.txt; sleep 0.2; done'],
      checkpoints: { everySec: 1, keep: 2 },
    },
  });
  t.equal(res.status, 201, JSON.stringify(res.json));
  const agent = res.json['agent'] as { id: string; cwd: string };
  t.ok(box.server.app.agentCheckpoints.followed().includes(agent.id), 'followed from its start');
  const mine = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: { label: 'mine' } });
  t.equal(mine.status, 201);
  const own = (mine.json['snapshot'] as Snapshot).id;

  // A checkpoint a second: three take three seconds, whatever else the machine does; the deadline is for a box that makes none.
  await waitFor('three checkpoints made', () => made(agent.id).length >= 3, 30_000);
  t.equal((await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  await waitFor('the checkpoints stopped once the agent ended', () => !box.server.app.agentCheckpoints.followed().includes(agent.id), 30_000);

  const all = made(agent.id);
  const left = await snapshotsOf(agent.id);
  t.same(
    left
      .filter((s) => s.label === 'checkpoint')
      .map((s) => s.id)
      .sort(),
    all.slice(-2).sort(),
    `the two newest of the ${all.length} made are kept, the older ones deleted`,
  );
  t.ok(
    left.some((s) => s.id === own),
    "a snapshot the operator took is never the checkpoints' to delete",
  );
  // The newest checkpoint holds the agent's file as it was then: a step it had reached.
  const newest = await fetch(`${box.server.apiUrl}/v1/snapshots/${all.at(-1)}/files/step.txt`, { headers: { authorization: `Bearer ${box.key}` } });
  t.equal(newest.status, 200);
  t.match(await newest.text(), /^[1-9][0-9]*\n$/, "the agent's file as of that checkpoint");
  const audit = (await readFile(`${box.paths.stateDir}/events/events-000001.jsonl`, 'utf8')).split('\n').filter((l) => l.includes(all[0]!));
  t.ok(
    audit.some((l) => l.includes('snapshot.created')) && audit.some((l) => l.includes('snapshot.deleted')),
    'the first checkpoint made and deleted, both on record',
  );
  t.ok(
    audit.every((l) => l.includes('"checkpoint"')),
    'as the box acting for the checkpoints',
  );
});

t.test('a checkpoint deleted by hand meanwhile: the others go on', async (t) => {
  const res = await box.api('/v1/agents', {
    // Two kept, one every 2 s: the first is the checkpoints' to delete only once the third is made, 4 s after it, long after this test deletes it.
    body: { name: 'handled', command: '/bin/sh', args: ['-c', 'echo x > f; exec sleep 60'], checkpoints: { everySec: 2, keep: 2 } },
  });
  const agent = res.json['agent'] as { id: string };
  await waitFor('a first checkpoint', () => made(agent.id).length >= 1, 30_000);
  const first = made(agent.id)[0]!;
  t.equal((await box.api(`/v1/snapshots/${first}`, { method: 'DELETE' })).status, 200);
  await waitFor('two more', () => made(agent.id).length >= 3, 30_000);
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
  // Once it is followed no more, the tick that made the third (and tried to delete the first) has ended.
  await waitFor('stopped', () => !box.server.app.agentCheckpoints.followed().includes(agent.id), 30_000);
  t.same((await snapshotsOf(agent.id)).map((s) => s.id).sort(), made(agent.id).slice(-2).sort(), 'the two newest kept');
  t.same(
    box.logs.events('AgentCheckpointNotDeleted').filter((e) => e['agent'] === agent.id),
    [],
    'the one already gone is no failure',
  );
});

t.test('bad requests are refused before anything starts', async (t) => {
  const bad = async (checkpoints: unknown, extra: Record<string, unknown> = {}) =>
    box.api('/v1/agents', { body: { name: 'never', command: '/bin/true', checkpoints, ...extra } });
  t.match(await bad({ everySec: 0 }), { status: 400, json: { error: 'ABX_ERR_VALIDATION' } }, 'everySec below 1');
  t.match(await bad({ everySec: 86_401 }), { status: 400 }, 'above a day');
  t.match(await bad({ everySec: 5, keep: 101 }), { status: 400 }, 'keep above 100');
  t.match(await bad({ keep: 3 }), { status: 400 }, 'no everySec');
  t.match(await bad({ everySec: 5, often: true }), { status: 400 }, 'an unknown key');
  t.match(
    await bad({ everySec: 5 }, { cwd: '.' }),
    { status: 400, json: { message: /cannot be checkpointed, as it holds other agents' directories/ } },
    'an agent in the workspace itself',
  );
  const agents = (await box.api('/v1/agents')).json['agents'] as Array<{ name: string }>;
  t.notOk(
    agents.some((a) => a.name === 'never'),
    'none started',
  );
});

t.test("a profile's checkpoints, a request's own instead, and both on the agent's record", async (t) => {
  type Plan = { everySec: number; keep: number; made: string[] };
  const recordOf = async (id: string) => (await box.api(`/v1/agents/${id}`)).json['agent'] as { checkpoints?: Plan };
  const byProfile = await box.api('/v1/agents', { body: { profile: 'keeper' } });
  t.equal(byProfile.status, 201, JSON.stringify(byProfile.json));
  const keeper = byProfile.json['agent'] as { id: string };
  t.match((await recordOf(keeper.id)).checkpoints, { everySec: 1, keep: 1 }, "the profile's plan");
  await waitFor('two checkpoints made', () => made(keeper.id).length >= 2, 30_000);
  // The record lists what is kept: the newest made, once the tick that made it has deleted the one before.
  const kept = await waitFor(
    'the older deleted',
    async () => {
      const plan = (await recordOf(keeper.id)).checkpoints;
      return plan?.made.length === 1 && plan.made[0] !== made(keeper.id)[0] ? plan.made : undefined;
    },
    30_000,
  );
  t.ok(made(keeper.id).includes(kept[0]!), 'the record lists a checkpoint the box made');
  const listed = ((await box.api('/v1/agents')).json['agents'] as Array<{ id: string; checkpoints?: Plan }>).find((a) => a.id === keeper.id);
  t.match(listed?.checkpoints, { everySec: 1, keep: 1, made: [String] }, 'the list carries them too');
  t.ok((await snapshotsOf(keeper.id)).filter((s) => s.label === 'checkpoint').length <= 2, 'one kept (and at most the one being made beside it)');

  const own = await box.api('/v1/agents', { body: { profile: 'keeper', name: 'keeper-own', checkpoints: { everySec: 3600 } } });
  t.equal(own.status, 201, JSON.stringify(own.json));
  t.same(
    (await recordOf((own.json['agent'] as { id: string }).id)).checkpoints,
    { everySec: 3600, keep: 10, made: [] },
    "the request's own replace the profile's",
  );
  const plain = await box.api('/v1/agents', { body: { name: 'plain', command: '/bin/sh', args: ['-c', 'exec sleep 60'] } });
  t.equal((await recordOf((plain.json['agent'] as { id: string }).id)).checkpoints, undefined, 'an agent without checkpoints shows none');

  const inWorkspace = await box.api('/v1/agents', { body: { profile: 'keeper', name: 'keeper-root', cwd: '.' } });
  t.match(
    inWorkspace,
    { status: 400, json: { message: /^agents\.profiles\.keeper\.checkpoints: an agent working in the workspace itself/ } },
    "a profile's checkpoints for an agent in the workspace itself: refused, naming the key",
  );
  for (const id of [keeper.id, (own.json['agent'] as { id: string }).id, (plain.json['agent'] as { id: string }).id])
    await box.api(`/v1/agents/${id}?graceMs=0`, { method: 'DELETE' });
});

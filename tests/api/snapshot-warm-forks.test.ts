// Warm forks on a real box with real agents: copies of a snapshot built ahead in the workspace's private `.abx-warm`, taken by forks
// in one rename (each fork still its own copy), replaced as they go, removed when no longer wanted, when the snapshot goes, and when
// the box stops; out of every agent's reach; bad requests refused.
import t from 'tap';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeRoot, startTestServer, waitFor, type TestServer } from './support/harness.js';

const TOML = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n';
const root = await makeRoot();
let box: TestServer;
t.before(async () => {
  // A copy a previous run left (a kill between building and handing it over) is not trusted: the start removes it.
  await mkdir(path.join(root.paths.workspaceDir, '.abx-warm', 'snp_left.000000000000'), { recursive: true });
  await writeFile(path.join(root.paths.workspaceDir, '.abx-warm', 'snp_left.000000000000', 'stale'), 'x');
  // The root outlives the box: the last test looks into it once the box has stopped.
  box = await startTestServer({ toml: TOML, root: { ...root, cleanup: async () => {} } });
});
t.teardown(async () => {
  await box?.close();
  await root.cleanup();
});

type Warm = { wanted: number; ready: number; building: boolean; error?: string };
const warmDir = () => path.join(box.paths.workspaceDir, '.abx-warm');
const warmOf = async (sid: string): Promise<Warm | undefined> => ((await box.api(`/v1/snapshots/${sid}`)).json['snapshot'] as { warm?: Warm }).warm;
const copies = async (): Promise<string[]> => readdir(warmDir());
const spawn = async (body: Record<string, unknown>) => {
  const res = await box.api('/v1/agents', { body });
  if (res.status !== 201) throw new Error(`spawn ${JSON.stringify(body)}: ${res.status} ${JSON.stringify(res.json)}`);
  // With the answer's fork: how the directory was made.
  return { ...(res.json['agent'] as { id: string; name: string; cwd: string; pid: number }), fork: res.json['fork'] as { warm?: boolean } | undefined };
};
const uidOf = async (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]);
const fileOf = (agent: { cwd: string }, rel: string) => readFile(path.join(box.paths.workspaceDir, agent.cwd, rel), 'utf8');

let sid: string;
t.test('a snapshot to fork', async (t) => {
  const origin = await spawn({
    name: 'origin',
    command: '/bin/sh',
    args: ['-c', 'mkdir -p src && for i in 1 2 3 4 5 6 7 8; do echo "line $i" > src/f$i.txt; done && echo good > state.txt && exec sleep 60'],
  });
  await waitFor('the origin wrote its tree', () => fileOf(origin, 'state.txt').catch(() => ''), 30_000);
  const res = await box.api(`/v1/agents/${origin.id}/snapshots`, { body: { label: 'good' } });
  t.equal(res.status, 201);
  sid = (res.json['snapshot'] as { id: string }).id;
  t.equal(await warmOf(sid), undefined, 'no warm forks until asked for');
});

t.test('two copies built ahead, taken by two forks at once, and replaced', async (t) => {
  const asked = await box.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body: { forks: 2 } });
  t.equal(asked.status, 200, JSON.stringify(asked.json));
  t.match(asked.json, { snapshot: sid, warm: { wanted: 2 } });
  await waitFor('two copies ready', async () => (await warmOf(sid))?.ready === 2, 30_000);
  t.equal((await copies()).length, 2, 'two copies in .abx-warm');
  t.notOk((await copies()).includes('snp_left.000000000000'), 'what a previous run left there went before any copy was built');
  t.equal((await stat(warmDir())).mode & 0o777, 0o700, ".abx-warm is the box's alone");
  const metrics = await (await fetch(box.server.metricsUrl)).text();
  t.match(metrics, /^agentbox_snapshot_warm_forks\{state="ready"\} 2$/m, 'the gauge counts them');
  t.match(metrics, /^agentbox_snapshot_warm_forks\{state="wanted"\} 2$/m);

  // A root box builds each copy as spare ids of its agents' block, none the box's and none another copy's.
  const asRoot = process.getuid?.() === 0;
  const copyUids = await Promise.all((await copies()).map(async (c) => (await stat(path.join(warmDir(), c, 'state.txt'))).uid));
  if (asRoot) {
    t.equal(new Set(copyUids).size, 2, 'each copy built as ids of its own');
    t.notOk(copyUids.includes(0), "neither is the box's");
  }
  const before = box.logs.events('SnapshotWarmReady').length;
  const [a, b] = await Promise.all(
    ['warm-a', 'warm-b'].map((name) =>
      spawn({ name, fromSnapshot: sid, command: '/bin/sh', args: ['-c', `cat state.txt > seen.txt && echo ${name} > own.txt && exec sleep 60`] }),
    ),
  );
  const forked = box.logs.events('SnapshotForked').filter((e) => e['agent'] === a!.id || e['agent'] === b!.id);
  t.same(
    forked.map((e) => e['warm']),
    [true, true],
    'both forks took a copy built ahead',
  );
  t.same([a!.fork?.warm, b!.fork?.warm], [true, true], 'and their answers say so');
  for (const agent of [a!, b!]) {
    t.equal(await waitFor(`${agent.name} read the snapshot's file`, () => fileOf(agent, 'seen.txt').catch(() => '')), 'good\n');
    t.equal(await fileOf(agent, 'src/f8.txt'), 'line 8\n', 'the whole tree is there');
    t.equal(await fileOf(agent, 'own.txt'), `${agent.name}\n`);
  }
  t.not(a!.cwd, b!.cwd, 'each fork in a directory of its own');
  // Every entry is the agent's uid's (on a root box, one of its own).
  for (const agent of [a!, b!])
    for (const rel of ['.', 'src', 'src/f3.txt', 'state.txt'])
      t.equal((await stat(path.join(box.paths.workspaceDir, agent.cwd, rel))).uid, await uidOf(agent.pid), `${agent.name}'s ${rel} is its own`);
  // Two names that never ran took the spare ids their copies were built as: the copies changed hands by their rename alone.
  if (asRoot) t.same((await Promise.all([a!, b!].map((x) => uidOf(x.pid)))).sort(), [...copyUids].sort(), 'each new name runs as its copy was built');
  t.equal(await fileOf(b!, 'own.txt'), 'warm-b\n', "a fork's writes are its own");

  await waitFor('both copies replaced', async () => box.logs.events('SnapshotWarmReady').length >= before + 2 && (await warmOf(sid))?.ready === 2, 30_000);
  t.equal((await copies()).length, 2, 'two copies again, none left of those taken');

  // A third fork, with the pool refilled: a copy again, in the cwd asked for.
  const c = await spawn({ name: 'warm-c', cwd: 'forks/c', fromSnapshot: sid, command: '/bin/sh', args: ['-c', 'exec sleep 60'] });
  t.equal(c.cwd, 'forks/c');
  t.equal(await fileOf(c, 'state.txt'), 'good\n');
  t.equal(box.logs.events('SnapshotForked').find((e) => e['agent'] === c.id)?.['warm'], true, 'a cwd below the workspace takes a copy too');
});

t.test('a restore in place takes a copy too', async (t) => {
  const agents = (await box.api('/v1/agents')).json['agents'] as { id: string; name: string; cwd: string; state: string }[];
  const a = agents.find((x) => x.name === 'warm-a' && x.state === 'running')!;
  t.equal((await box.api(`/v1/agents/${a.id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  await waitFor('warm-a ended', async () => ((await box.api(`/v1/agents/${a.id}`)).json['agent'] as { state: string }).state !== 'running', 30_000);
  const restored = await box.api(`/v1/agents/${a.id}/restore`, { body: { snapshot: sid } });
  t.equal(restored.status, 200, JSON.stringify(restored.json));
  t.match(restored.json, { restored: sid, warm: true, cloned: false, files: 9 }, 'a copy built ahead, swapped in');
  t.equal(await fileOf(a, 'state.txt'), 'good\n');
  await t.rejects(fileOf(a, 'own.txt'), { code: 'ENOENT' }, 'what the fork wrote since is gone');
  // The copy was built as spare ids on a root box: given to the directory's owner, entry by entry.
  const owner = (await stat(path.join(box.paths.workspaceDir, a.cwd))).uid;
  for (const rel of ['src', 'src/f3.txt', 'state.txt'])
    t.equal((await stat(path.join(box.paths.workspaceDir, a.cwd, rel))).uid, owner, `the restored ${rel} is the agent's`);
  await waitFor('the copy replaced', async () => (await warmOf(sid))?.ready === 2, 30_000);

  // A name that ran before keeps its ids: its fork's copy is given to them, not adopted.
  const again = await spawn({ name: 'warm-a', fromSnapshot: sid, command: '/bin/sh', args: ['-c', 'exec sleep 60'] });
  t.equal(again.fork?.warm, true, 'a copy built ahead again');
  t.equal(await uidOf(again.pid), owner, 'warm-a runs as the uid it had');
  for (const rel of ['.', 'src', 'src/f3.txt', 'state.txt'])
    t.equal((await stat(path.join(box.paths.workspaceDir, again.cwd, rel))).uid, owner, `its ${rel} is its own`);
  await waitFor('the copy replaced', async () => (await warmOf(sid))?.ready === 2, 30_000);
});

t.test('no agent reaches the copies', async (t) => {
  const prober = await spawn({
    name: 'prober',
    command: '/bin/sh',
    args: [
      '-c',
      'ls ../.abx-warm > probe.txt 2>&1; echo "ls=$?" >> probe.txt; for d in ../.abx-warm/*; do echo bad > "$d/state.txt"; done 2>> probe.txt; echo "write=$?" >> probe.txt; echo done >> probe.txt; exec sleep 60',
    ],
  });
  const probe = await waitFor(
    'the probe ran',
    async () => {
      const text = await fileOf(prober, 'probe.txt').catch(() => '');
      return text.includes('done') ? text : '';
    },
    30_000,
  );
  t.notMatch(probe, /ls=0/, 'the pool cannot be listed');
  for (const copy of await copies()) t.equal(await readFile(path.join(warmDir(), copy, 'state.txt'), 'utf8'), 'good\n', `copy ${copy} untouched`);
  const refused = await box.api('/v1/agents', { body: { name: 'intruder', cwd: '.abx-warm', command: '/bin/true' } });
  t.equal(refused.status, 400, 'no agent is started in .abx-warm');
  t.match(refused.json, { message: /\.abx-\* directories are the box's own/ });
});

t.test('fewer wanted, bad requests, and the snapshot deleted', async (t) => {
  t.match((await box.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body: { forks: 1 } })).json, { warm: { wanted: 1, ready: 1 } });
  await waitFor('the extra copy removed', async () => (await copies()).length === 1, 30_000);

  for (const body of [{ forks: 33 }, { forks: -1 }, { forks: 1.5 }, {}, { forks: 1, more: true }]) {
    const res = await box.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body });
    t.equal(res.status, 400, `${JSON.stringify(body)} refused`);
  }
  t.equal((await box.api('/v1/snapshots/snp_AAAAAAAAAAAA/warm', { method: 'PUT', body: { forks: 1 } })).status, 404, 'an unknown snapshot');
  const running = ((await box.api('/v1/agents')).json['agents'] as { pid: number; state: string }[]).find((a) => a.state === 'running')!;
  const agentToken = /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(await readFile(`/proc/${running.pid}/environ`, 'utf8'))?.[1];
  t.ok(agentToken, "an agent's token");
  t.equal((await box.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body: { forks: 2 }, auth: agentToken! })).status, 403, "an agent's token is refused");

  t.equal((await box.api(`/v1/snapshots/${sid}`, { method: 'DELETE' })).status, 200);
  await waitFor('its copies removed with it', async () => (await copies()).length === 0, 30_000);
  t.equal((await box.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body: { forks: 1 } })).status, 404, 'no copies of a deleted snapshot');
});

t.test('the box stopping removes the copies', async (t) => {
  const agents = (await box.api('/v1/agents')).json['agents'] as { id: string; state: string }[];
  const one = agents.find((a) => a.state === 'running')!;
  const snap = await box.api(`/v1/agents/${one.id}/snapshots`, { body: {} });
  const again = (snap.json['snapshot'] as { id: string }).id;
  await box.api(`/v1/snapshots/${again}/warm`, { method: 'PUT', body: { forks: 1 } });
  await waitFor('a copy ready', async () => (await warmOf(again))?.ready === 1, 30_000);
  await box.close();
  t.notOk(existsSync(warmDir()), 'no copy left behind, nor their directory');
});

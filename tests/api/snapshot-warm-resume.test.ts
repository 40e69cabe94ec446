// Warm forks across a restart, on real boxes started one after another on one root: the counts wanted are kept (0600, in the state
// directory, not the copies), a deleted snapshot's dropped; the next start builds them again and a fork takes one; a damaged file
// is said by name and costs nothing else, and the next request rewrites it.
import t from 'tap';
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeRoot, startTestServer, waitFor, type TestServer } from './support/harness.js';

const TOML = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const root = await makeRoot();
// The root outlives each box: the next one starts on it.
const start = () => startTestServer({ toml: TOML, root: { ...root, cleanup: async () => {} } });
let box: TestServer | undefined;
t.teardown(async () => {
  await box?.close();
  await root.cleanup();
});

type Warm = { wanted: number; ready: number; building: boolean; error?: string };
const wantedFile = path.join(root.paths.stateDir, 'warm-wanted.json');
const warmOf = async (b: TestServer, sid: string): Promise<Warm | undefined> =>
  ((await b.api(`/v1/snapshots/${sid}`)).json['snapshot'] as { warm?: Warm }).warm;
const warm = (b: TestServer, sid: string, forks: number) => b.api(`/v1/snapshots/${sid}/warm`, { method: 'PUT', body: { forks } });

let sid = '';
t.test('the counts wanted are kept, not the copies', async (t) => {
  box = await start();
  const b = box;
  const spawned = await b.api('/v1/agents', {
    body: { name: 'maker', command: '/bin/sh', args: ['-c', 'mkdir src && echo good > state.txt && echo f > src/f'] },
  });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const agent = spawned.json['agent'] as { id: string };
  // Its end is an event: its output followed until it ends.
  await (await fetch(`${b.server.apiUrl}/v1/agents/${agent.id}/output?follow=true`, { headers: { authorization: `Bearer ${b.key}` } })).text();
  const take = async () => ((await b.api(`/v1/agents/${agent.id}/snapshots`, { body: {} })).json['snapshot'] as { id: string }).id;
  sid = await take();
  const other = await take();
  t.equal((await warm(b, sid, 2)).status, 200);
  t.equal((await warm(b, other, 1)).status, 200);
  await waitFor('the copies ready', async () => (await warmOf(b, sid))?.ready === 2 && (await warmOf(b, other))?.ready === 1, 30_000);
  t.equal((await b.api(`/v1/snapshots/${other}`, { method: 'DELETE' })).status, 200);
  // Saved after each change, one save after another: the last one is what the file holds.
  const saved = await waitFor('the deleted snapshot dropped from the file', async () => {
    const text = await readFile(wantedFile, 'utf8').catch(() => '');
    return text.includes(sid) && !text.includes(other) ? text : undefined;
  });
  t.same(JSON.parse(saved), { [sid]: 2 }, 'one count, by snapshot id');
  t.equal((await stat(wantedFile)).mode & 0o777, 0o600, "the box's own file");
  await b.close();
  box = undefined;
  t.same(JSON.parse(await readFile(wantedFile, 'utf8')), { [sid]: 2 }, 'a stop keeps the counts (it removes only the copies)');
});

t.test('the next start builds them again, and a fork takes one', async (t) => {
  box = await start();
  const b = box;
  const resumed = await waitFor('the counts asked for again', () => b.logs.events('SnapshotWarmResumed')[0], 30_000);
  t.match(resumed, { snapshots: [sid], copies: 2 });
  await waitFor('both copies built again', async () => (await warmOf(b, sid))?.ready === 2, 30_000);
  t.match(await warmOf(b, sid), { wanted: 2, ready: 2 }, 'as before the restart');
  const fork = await b.api('/v1/agents', { body: { name: 'after', command: '/bin/sh', args: ['-c', 'cat state.txt; exec sleep 60'], fromSnapshot: sid } });
  t.equal(fork.status, 201, JSON.stringify(fork.json));
  t.match(fork.json['fork'], { snapshot: sid, warm: true }, 'a fork after the restart takes a copy built ahead');
  const cwd = (fork.json['agent'] as { cwd: string }).cwd;
  t.equal(await readFile(path.join(b.paths.workspaceDir, cwd, 'state.txt'), 'utf8'), 'good\n');
  await b.close();
  box = undefined;
});

t.test('a damaged file is said, and the next request rewrites it', async (t) => {
  await writeFile(wantedFile, '{"snp_', { mode: 0o600 });
  box = await start();
  const b = box;
  const said = await waitFor('the file said', () => b.logs.events('SnapshotWarmNotResumed')[0], 30_000);
  t.match(said, { file: 'warm-wanted.json', problem: /^not JSON/ }, 'named, with what is wrong');
  t.equal((await b.api('/v1/snapshots')).status, 200, 'the box answers all the same');
  t.equal(await warmOf(b, sid), undefined, 'nothing asked for');
  t.equal((await warm(b, sid, 1)).status, 200);
  await waitFor('the file rewritten', async () => (await readFile(wantedFile, 'utf8').catch(() => '')).trim() === JSON.stringify({ [sid]: 1 }));

  for (const [text, problem] of [
    ['[]', /not a JSON object/],
    [JSON.stringify({ [sid]: 33 }), /is not a snapshot id with 1 to 32 copies/],
    [JSON.stringify({ '../x': 1 }), /is not a snapshot id/],
  ] as const) {
    await box!.close();
    await writeFile(wantedFile, text);
    box = await start();
    const again = await waitFor('the file said', () => box!.logs.events('SnapshotWarmNotResumed')[0], 30_000);
    t.match(again, { problem }, `${text}: refused whole`);
  }
});

// Entries dated before 1970 through a snapshot: a fork and a restore give them back their own mtimes, and a tar of the snapshot (and of the workspace) packs them.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/harness.js';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

type Agent = { id: string; cwd: string };
const spawn = async (body: Record<string, unknown>): Promise<Agent> => {
  const res = await box.api('/v1/agents', { body: { command: '/bin/sh', args: ['-c', 'exec sleep 600'], ...body } });
  if (res.status !== 201) throw new Error(`spawn failed: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json['agent'] as Agent;
};
const dirOf = (agent: Agent) => path.join(box.paths.workspaceDir, agent.cwd);
const raw = (pathname: string) => fetch(box.server.apiUrl + pathname, { headers: { authorization: `Bearer ${box.key}` } });

/** 1938-04-24T22:13:19.25Z: before 1970, with a fraction of a second. */
const OLD_S = -1_000_000_000.75;
const OLD_MS = OLD_S * 1000;
/** `touch` sets it: Node's own utimes turns a negative time into now. */
const age = (p: string) => execFileSync('touch', ['-h', '-d', `@${OLD_S}`, p]);
const NAMES = ['old.txt', 'old-dir', 'old-link'];

let agent: Agent;
let sid: string;
t.before(async () => {
  agent = await spawn({ name: 'elder' });
  const dir = dirOf(agent);
  await writeFile(path.join(dir, 'old.txt'), 'from before 1970\n');
  await mkdir(path.join(dir, 'old-dir'));
  execFileSync('ln', ['-s', 'old.txt', path.join(dir, 'old-link')]);
  for (const name of NAMES) age(path.join(dir, name));
  const res = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  if (res.status !== 201) throw new Error(`snapshot failed: ${res.status} ${JSON.stringify(res.json)}`);
  sid = (res.json['snapshot'] as { id: string }).id;
});

const mtimesOf = async (dir: string) => Promise.all(NAMES.map(async (n) => (await lstat(path.join(dir, n))).mtimeMs));

t.test('a fork and a restore give a file, a directory and a link their mtimes before 1970 (never the time of the build)', async (t) => {
  const fork = await spawn({ name: 'elder-fork', fromSnapshot: sid });
  t.same(await mtimesOf(dirOf(fork)), [OLD_MS, OLD_MS, OLD_MS], 'the fork');
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
  const restored = await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: sid } });
  t.equal(restored.status, 200, JSON.stringify(restored.json));
  t.same(await mtimesOf(dirOf(agent)), [OLD_MS, OLD_MS, OLD_MS], 'the restore');
});

t.test('a tar of the snapshot, and of the workspace, packs entries dated before 1970 whole', async (t) => {
  for (const url of [`/v1/snapshots/${sid}/files?format=tar`, `/v1/agents/${agent.id}/files/?format=tar`]) {
    const res = await raw(url);
    t.equal(res.status, 200, url);
    const tar = Buffer.from(await res.arrayBuffer());
    const listed = execFileSync('tar', ['-tvf', '-', '--full-time'], { input: tar, encoding: 'utf8' }).trim().split('\n');
    t.equal(listed.length, 3, `${url}: every entry`);
    for (const line of listed) t.match(line, / 1938-04-24 22:13:19 /, `${url}: ${/ 22:13:19 (\S+)/.exec(line)?.[1]} dated as it was (whole seconds)`);
  }
});

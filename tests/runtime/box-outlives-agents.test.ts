// A box started with `agentbox up --local` (agents under the launcher alone) against agents that detach, leave trees the clean-up chokes on, or wait for the box to go: the API survives them, no programme can dump core, and no agent process outlives an API restart or the box.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { processGone } from '../contract/orchestrator.contract.js';
import { waitFor } from '../helpers/wait.js';
import { ESCAPE } from '../helpers/detaching-agent.js';
import { apiKeyOf, startLocalBox } from './support/local-box.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

/** A 30-deep chain of 200-character directory names in $TMPDIR (past PATH_MAX), then exit. */
const DEEP_TREE = `
import os
os.chdir(os.environ['TMPDIR'])
for i in range(30):
    name = ('d%02d' % i) * 50
    os.mkdir(name)
    os.chdir(name)
open('leaf', 'w').write('x')
print('deep', flush=True)
`;

/** The fields of GET /health the cases read. */
type Health = { programs?: { programs: unknown } };

t.test('the box outlives its agents, and no agent outlives the box', { timeout: 240_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-outlives-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // Searchable by others: as root, the box runs agents as nobody, which must reach their directories.
  chmodSync(work, 0o711);
  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const manifestFile = path.join(work, 'agentbox.toml');
  writeFileSync(
    manifestFile,
    `[api]\nport = ${apiPort}\n\n[observability]\nmetrics_port = ${metricsPort}\n\n[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\ncritical = []\n\n[sandbox]\nnamespaces = "off"\n`,
  );
  const root = path.join(work, 'box');
  mkdirSync(root);
  const local = startLocalBox({ manifestFile, root, apiPort, logFile: path.join(work, 'up.log') });
  t.teardown(() => local.stop());
  await local.ready();
  const key = apiKeyOf(root);
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const call = async <T = Record<string, unknown>>(method: string, url: string, body?: unknown) => {
    const res = await fetch(local.apiUrl + url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const programs = async () => (await call<Health>('GET', '/health')).body['programs']?.programs as Array<{ name: string; pid: number; state: string }>;
  const apiPid = async () => (await programs()).find((p) => p.name === 'management-api')?.pid;
  const spawnScript = async (name: string, script: string, args: string[] = []) => {
    mkdirSync(path.join(paths.workspaceDir, name), { recursive: true });
    writeFileSync(path.join(paths.workspaceDir, name, 'agent.py'), script);
    const r = await call('POST', '/v1/agents', { name, command: '/usr/bin/python3', args: ['agent.py', ...args] });
    t.equal(r.status, 201, `spawn ${name}: ${JSON.stringify(r.body)}`);
    return r.body['agent'] as { id: string; pid: number };
  };
  const daemonsOf = (name: string) =>
    waitFor(
      `${name}'s daemons`,
      () => {
        const file = path.join(paths.workspaceDir, name, 'daemons.txt');
        return existsSync(file) ? readFileSync(file, 'utf8').split(' ').map(Number) : undefined;
      },
      15_000,
      50,
    );

  t.test('no programme of the box can dump core, and none works in the checkout', async (t) => {
    const list = await programs();
    t.ok(list.length >= 2, `programmes listed: ${list.map((p) => p.name).join(', ')}`);
    for (const p of list.filter((p) => p.state === 'RUNNING')) {
      const limits = readFileSync(`/proc/${p.pid}/limits`, 'utf8');
      t.match(limits, /^Max core file size\s+0\s+0\s+bytes/m, `${p.name}: RLIMIT_CORE 0, soft and hard`);
      t.equal(readlinkSync(`/proc/${p.pid}/cwd`), paths.runDir, `${p.name}: works in the run directory, which no agent may read`);
    }
  });

  t.test("an agent's clean-up that fails does not take the API down", async (t) => {
    const before = await apiPid();
    const agent = await spawnScript('deep', DEEP_TREE);
    const record = await waitFor(
      'the deep agent to end',
      async () => {
        const a = (await call<{ agent?: { endedAt?: string } }>('GET', `/v1/agents/${agent.id}`)).body['agent'];
        return a?.endedAt ? a : undefined;
      },
      30_000,
      100,
    );
    t.match(record, { state: 'exited', exitCode: 0 });
    // The clean-up runs once the agent has ended; then nothing may have restarted.
    await waitFor('the agent temporary directory to go', () => !readdirSync(paths.tmpDir).some((n) => n.startsWith('agent-')), 15_000, 100);
    t.pass('its temporary directory, deeper than PATH_MAX, was removed');
    t.equal(await apiPid(), before, 'the API was not restarted');
    t.equal((await fetch(`${local.apiUrl}/ready`)).status, 200, '/ready 200');
  });

  t.test('an API restart ends the agents it ran, detached daemons included', async (t) => {
    const agent = await spawnScript('detacher', ESCAPE, ['4', '600', '0']);
    const daemons = await daemonsOf('detacher');
    t.notOk(daemons.some(processGone), 'the daemons run');
    const pid = await apiPid();
    process.kill(pid!, 'SIGKILL');
    await waitFor('every daemon to end with the API', () => daemons.every(processGone) && processGone(agent.pid), 15_000, 50);
    t.pass('the agent and its daemons ended with the API');
    await local.ready();
    t.not(await apiPid(), pid, 'supervisord started a new API');
  });

  t.test('no agent process outlives the box', async (t) => {
    await spawnScript('survivor', ESCAPE, ['4', '600', '0']);
    const daemons = await daemonsOf('survivor');
    t.notOk(daemons.some(processGone), 'the daemons run');
    await local.stop();
    await waitFor('every daemon to end with the box', () => daemons.every(processGone), 15_000, 50);
    t.pass('after the box stopped, none of its agent processes is alive');
  });
});

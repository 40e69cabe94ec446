// A box whose whole root (state and workspace) is a 16 MiB tmpfs of the test's own: an agent over its disk budget is ended with limit:disk, a nearly full disk refuses spawns and makes /ready 503, and everything recovers once space returns, beads intact.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../runtime-contract/support/box-runner.js';
import { waitFor } from '../helpers/wait.js';
import { apiKeyOf, startLocalBox } from './support/local-box.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';

const MIB = 1024 ** 2;
const isRoot = process.getuid?.() === 0;
/** The fields of an agent's record the cases read. */
type AgentRecord = { id: string; state: string; limits: { disk_bytes: number }; usage: { disk_bytes: number } };

t.test('a box on a small disk of its own', { timeout: 240_000, skip: isRoot ? false : 'mounting a tmpfs needs root (CI runs as root)' }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-disk-full-'));
  // Searchable by others: as root, the box runs agents as uid 65534, which must reach their directories.
  chmodSync(work, 0o711);
  const root = path.join(work, 'box');
  mkdirSync(root);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m,mode=0755', 'tmpfs', root], { encoding: 'utf8' });
  if (mounted.status !== 0) {
    rmSync(work, { recursive: true, force: true });
    t.pass('the box on a small disk', { skip: `cannot mount a tmpfs here: ${mounted.stderr.trim()}` });
    return;
  }
  const [apiPort, metricsPort, egressPort] = [await freePort(), await freePort(), await freePort()];
  const manifestFile = path.join(work, 'agentbox.toml');
  writeFileSync(
    manifestFile,
    `[api]\nport = ${apiPort}\n\n[observability]\nmetrics_port = ${metricsPort}\n\n` +
      `[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\ncritical = []\n\n` +
      // 3 MiB kept free for the box's own writes; each agent may hold 4 MiB.
      `[resources]\nmin_free_disk = "3m"\n\n[sandbox]\nnamespaces = "off"\n\n[sandbox.limits]\ndisk = "4m"\n\n[sandbox.egress]\nport = ${egressPort}\n`,
  );
  const local = startLocalBox({ manifestFile, root, apiPort, logFile: path.join(work, 'up.log') });
  // One teardown, in order: the box, then the mount under it, then the directory.
  t.teardown(async () => {
    await local.stop();
    spawnSync('umount', ['-l', root]);
    rmSync(work, { recursive: true, force: true });
  });
  await local.ready();
  const key = apiKeyOf(root);
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const call = async <T = Record<string, unknown>>(method: string, url: string, body?: unknown) => {
    const res = await fetch(local.apiUrl + url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(15_000),
    });
    return { status: res.status, body: (await res.json()) as T };
  };
  const agentEnded = (id: string) =>
    waitFor(
      `agent ${id} to end`,
      async () => {
        const { body } = await call<{ agent: AgentRecord }>('GET', `/v1/agents/${id}`);
        return ['running', 'starting'].includes(body['agent']?.state) ? undefined : body['agent'];
      },
      60_000,
      250,
    );
  const free = () => {
    const s = statfsSync(root);
    return s.bavail * s.bsize;
  };

  const beads: string[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await call<{ bead: { id: string } }>('POST', '/v1/beads', { title: `before ${i}` });
    t.equal(r.status, 201, `bead ${i} created`);
    beads.push(r.body['bead'].id);
  }

  t.test('an agent writing past its 4 MiB budget is ended with limit:disk', async (t) => {
    const spawned = await call<{ agent: AgentRecord }>('POST', '/v1/agents', {
      name: 'filler',
      command: '/bin/sh',
      args: ['-c', 'dd if=/dev/urandom of=big bs=1M count=6 2>/dev/null; sleep 300'],
    });
    t.equal(spawned.status, 201, JSON.stringify(spawned.body));
    t.equal(spawned.body['agent'].limits.disk_bytes, 4 * MIB);
    const ended = await agentEnded(spawned.body['agent'].id);
    t.match(ended, { state: 'terminated', reason: 'limit:disk' });
    t.ok(ended.usage.disk_bytes > 4 * MIB, `its last figure: ${ended.usage.disk_bytes} bytes`);
    t.ok(
      local.events().some((e) => e['event'] === 'AgentLimitExceeded' && e['reason'] === 'limit:disk'),
      'AgentLimitExceeded logged',
    );
    // What it wrote stays in its directory (the workspace is the operator's): removed here.
    rmSync(path.join(paths.workspaceDir, 'filler'), { recursive: true, force: true });
  });

  t.test('with the disk nearly full: spawns refused, /ready 503 naming the path, beads still written', async (t) => {
    const filler = path.join(paths.workspaceDir, 'operator-filler');
    // Leave 1 MiB: below the 3 MiB kept free, room still for the box's own writes.
    writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 1 * MIB), 1));
    t.ok(free() < 3 * MIB, `free now ${free()} bytes`);
    const refused = await call('POST', '/v1/agents', { name: 'late', command: '/bin/true' });
    t.equal(refused.status, 507);
    t.equal(refused.body['error'], 'ABX_ERR_DISK_LOW');
    t.match(refused.body['message'], /free space on .* is .* bytes\), below resources\.min_free_disk 3\.0 MiB \(3145728 bytes\)/);
    const unready = await waitFor(
      '/ready to answer 503',
      async () => {
        const res = await fetch(`${local.apiUrl}/ready`);
        return res.status === 503 ? ((await res.json()) as Record<string, unknown>) : undefined;
      },
      20_000,
      250,
    );
    t.match(unready['missing'], ['disk:state', 'disk:workspace']);
    t.match(unready['reason'], new RegExp(`free space on ${paths.stateDir} is .* below resources.min_free_disk`));
    const during = await call<{ bead: { id: string } }>('POST', '/v1/beads', { title: 'while low' });
    t.equal(during.status, 201, 'the box keeps room for its own writes: a bead is still written');
    beads.push(during.body['bead'].id);
    rmSync(filler);
  });

  t.test('space returns: ready again, a spawn works, every bead is there', async (t) => {
    await waitFor('/ready to answer 200 again', async () => (await fetch(`${local.apiUrl}/ready`)).status === 200, 20_000, 250);
    const spawned = await call<{ agent: AgentRecord }>('POST', '/v1/agents', { name: 'after', command: '/bin/sh', args: ['-c', 'echo fine'] });
    t.equal(spawned.status, 201, JSON.stringify(spawned.body));
    t.match(await agentEnded(spawned.body['agent'].id), { state: 'exited', exitCode: 0 });
    for (const id of beads) t.equal((await call('GET', `/v1/beads/${id}`)).status, 200, `bead ${id} kept`);
  });
});

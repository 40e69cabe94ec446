// End to end in a container: the generated docker-compose.yml, unchanged, runs the test image
// (`agentbox image build --load`) under a private Docker engine. Healthy through the compose
// healthcheck; /ready and /metrics through the published 127.0.0.1 ports; every process uid
// 1000 with no capabilities and no-new-privileges; a read-only root with writes only in tmpfs and
// volumes; state kept across down + up; a killed API restarted; a clean stop within 10 s.
import t from 'tap';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { startPrivateEngine, type PrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { containerProcesses, e2eSkipped, prepareBox, removeBox, supervisorctl, waitReady, type ComposeBox } from './support/compose-box.js';
import { waitFor } from '../helpers/wait.js';
import { rc06KilledApiRestarts, rc08NoSecretInEnvironmentOrLogs, type RunningBox } from '../runtime-contract/support/shared-cases.js';

const dirs = boxFacts.runtime.dirs;
/** The fields of the API's answers the cases read. */
type AgentAnswer = { agent: { id: string; state: string } };
type BeadAnswer = { bead: { id: string; title: string } };
// An operator programme required for readiness, as in the host RC cases (coreutils' sleep is in the image).
const manifest = (p: { api: number; metrics: number }) => `[agentbox]
name = "e2e-box"

[api]
port = ${p.api}

[observability]
metrics_port = ${p.metrics}

[programs.worker]
command = "/bin/sleep"
args = ["1000"]
priority = 500
required_for_readiness = true
`;

t.test('the generated compose file runs the hardened box', { skip: e2eSkipped && 'AGENTBOX_E2E=skip', timeout: 600_000 }, async (t) => {
  // No engine is a failure with dockerd's own words, never a silent pass.
  const engine: PrivateEngine = await startPrivateEngine();
  t.teardown(() => engine.stop());
  const box: ComposeBox = await prepareBox(engine, manifest);
  t.teardown(() => removeBox(box));

  const up = box.compose('up', '-d');
  t.equal(up.status, 0, `docker-compose up -d: ${up.stderr}`);
  await waitReady(box).catch((err: Error) => {
    throw new Error(`${err.message}\n${box.logs().slice(-4000)}`);
  });
  t.pass('/ready 200 from the host through the published API port');
  await box.waitHealthy();
  t.pass('the compose healthcheck says healthy');
  const metrics = await fetch(box.metricsUrl, { signal: AbortSignal.timeout(5000) });
  t.equal(metrics.status, 200, '/metrics from the host through the published metrics port');
  t.match(await metrics.text(), /^agentbox_build_info\{/m, 'a Prometheus exposition of the box');
  t.equal((await fetch(`${box.apiUrl}/v1/meta`)).status, 401, '/v1/meta needs the key');
  const meta = await box.call('GET', '/v1/meta');
  t.equal(meta.status, 200, '/v1/meta with the key from the state volume');

  t.test('RC-02 in the container: the boot events, and the seal follows the required programmes', async (t) => {
    const events = box.events().map((e) => e.event);
    for (const e of [
      'StageAStarted',
      'SecretsReady',
      'ArtifactProbesPassed',
      'StageACompleted',
      'StageBCompleted',
      'BootstrapSealStarted',
      'BootstrapCompleted',
    ])
      t.ok(events.includes(e), `event ${e}`);
    t.ok(
      box.events().every((e) => typeof e['agentbox.stage'] === 'string'),
      'every event names its stage',
    );
    const sealed = () => box.exec('node', '-e', 'process.stdout.write(String(require("fs").existsSync(process.argv[1])))', boxFacts.runtime.files.sealFile);
    t.equal(sealed(), 'true', 'the seal exists');
    supervisorctl(box, 'stop', 'worker');
    await waitReady(box, 503);
    t.equal(sealed(), 'false', 'a required programme stopped: the seal is withdrawn, /ready 503 from the host');
    supervisorctl(box, 'start', 'worker');
    await waitReady(box, 200);
    t.equal(sealed(), 'true', 'and back once it runs again');
  });

  t.test('hardening: uid 1000, no capabilities, no-new-privileges, read-only root', async (t) => {
    const procs = containerProcesses(box);
    t.ok(
      procs.some((p) => /supervisord/.test(p.cmd)) && procs.some((p) => /box\/management-api\.js/.test(p.cmd)) && procs.some((p) => /tini/.test(p.cmd)),
      `tini, supervisord and the API among ${procs.length} processes`,
    );
    for (const p of procs) {
      t.same(p.uids.split(/\s+/), ['1000', '1000', '1000', '1000'], `${p.cmd.slice(0, 50)}: uid 1000 (real, effective, saved, fs)`);
      t.equal(p.capEff, '0000000000000000', `${p.cmd.slice(0, 50)}: CapEff 0`);
      t.equal(p.noNewPrivs, '1', `${p.cmd.slice(0, 50)}: NoNewPrivs 1`);
    }
    t.equal(box.inspect()['HostConfig']['ReadonlyRootfs'], true, 'the container root is read-only');
    const probe = `const fs=require('fs');const r={};for(const d of JSON.parse(process.argv[1])){try{fs.writeFileSync(d+'/.abx-probe','x');fs.unlinkSync(d+'/.abx-probe');r[d]='ok'}catch(e){r[d]=e.code}}process.stdout.write(JSON.stringify(r))`;
    const writable = [dirs.tmpDir, dirs.runDir, dirs.logDir, dirs.stateDir, dirs.workspaceDir];
    const readOnly = ['/', '/etc', boxFacts.image.appDir, '/usr/bin', dirs.configDir];
    const result = JSON.parse(box.exec('node', '-e', probe, JSON.stringify([...writable, ...readOnly]))) as Record<string, string>;
    for (const d of writable) t.equal(result[d], 'ok', `${d} is writable (tmpfs or volume)`);
    for (const d of readOnly) t.equal(result[d], 'EROFS', `${d} is on the read-only root`);
    // Every writable mount is a tmpfs, the state volume or the workspace (Docker's own /etc files are root's).
    const mounts = box
      .exec('cat', '/proc/self/mountinfo')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [pre, post] = l.split(' - ');
        const f = pre!.split(' ');
        return { point: f[4]!, opts: f[5]!, fs: post!.split(' ')[0]! };
      });
    const rw = mounts.filter(
      (m) =>
        m.opts.split(',').includes('rw') &&
        !['proc', 'sysfs', 'cgroup', 'cgroup2', 'devpts', 'mqueue'].includes(m.fs) &&
        !m.point.startsWith('/dev') &&
        !m.point.startsWith('/proc') &&
        !m.point.startsWith('/sys'),
    );
    const tmpfs = Object.keys(boxFacts.baseline.tmpfs);
    t.same(
      rw
        .map((m) => m.point)
        .filter((p) => !p.startsWith('/etc/'))
        .sort(),
      [...tmpfs, dirs.stateDir, dirs.workspaceDir].sort(),
      'the only writable mounts: the baseline tmpfs, the state volume, the workspace',
    );
    t.same(
      rw.filter((m) => tmpfs.includes(m.point)).map((m) => m.fs),
      tmpfs.map(() => 'tmpfs'),
      `${tmpfs.join(', ')} are tmpfs`,
    );
    const etc = JSON.parse(box.exec('node', '-e', probe, JSON.stringify(['/etc/hosts', '/etc/hostname', '/etc/resolv.conf'].map((f) => `${f}.d`)))) as Record<
      string,
      string
    >;
    t.notOk(Object.values(etc).includes('ok'), `Docker's /etc mounts take no writes: ${JSON.stringify(etc)}`);
  });

  t.test('state survives docker-compose down + up: key, identity, beads, events, memory, pods', async (t) => {
    const key = box.apiKey();
    const identity = box.events().find((e) => e.event === 'SecretsReady')?.['identity_pubkey'];
    t.match(identity, /^[0-9a-f]{64}$/, 'the identity public key of the first boot');
    const bead = await box.call<BeadAnswer>('POST', '/v1/beads', { title: 'survive a restart' });
    t.equal(bead.status, 201);
    t.equal((await box.call('POST', '/v1/memory/notes', { id: 'keys', text: 'rotate the signing keys every month' })).status, 201);
    const event = await box.call<{ event: { id: string } }>('POST', '/v1/events', { kind: 'agent.note', source: 'e2e', data: { text: 'before the restart' } });
    t.equal(event.status, 201);
    const pod = await fetch(`${box.apiUrl}/v1/pods/notes/plan.md`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/markdown' },
      body: '# plan',
    });
    t.equal(pod.status, 201);
    box.exec('node', '-e', 'require("fs").mkdirSync(process.argv[1], { recursive: true })', `${dirs.workspaceDir}/repo`);
    const agent = await box.call<AgentAnswer>('POST', '/v1/agents', {
      name: 'builder',
      command: '/bin/sh',
      args: ['-c', 'echo building; echo done > done.txt'],
      cwd: 'repo',
    });
    t.equal(agent.status, 201, `an agent spawned: ${JSON.stringify(agent.body)}`);
    await waitFor(
      'the agent to exit',
      async () => (await box.call<AgentAnswer>('GET', `/v1/agents/${agent.body.agent.id}`)).body.agent.state === 'exited',
      15_000,
    );

    const down = box.compose('down');
    t.equal(down.status, 0, `docker-compose down: ${down.stderr}`);
    t.equal(box.container(), '', 'no container left');
    t.equal(box.compose('up', '-d').status, 0, 'docker-compose up -d again');
    await waitReady(box);
    t.equal(box.apiKey(), key, 'the same API key');
    const boots = box.events().filter((e) => e.event === 'SecretsReady');
    t.match(boots.at(-1), { identity_pubkey: identity, identity_created: false, api_key_created: false }, 'the same identity, nothing created');
    t.equal((await box.call<BeadAnswer>('GET', `/v1/beads/${bead.body.bead.id}`)).body.bead?.title, 'survive a restart', 'the bead');
    const hits = await box.call<{ hits?: Array<{ id: string }> }>('POST', '/v1/memory/notes/search', { text: 'when do we rotate signing keys?', k: 1 });
    t.equal(hits.body.hits?.[0]?.id, 'keys', 'the memory');
    const events = await box.call('GET', '/v1/events?kind=agent.note');
    t.ok(JSON.stringify(events.body).includes(event.body.event.id), 'the event');
    const plan = await fetch(`${box.apiUrl}/v1/pods/notes/plan.md`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(await plan.text(), '# plan', 'the pod resource');
    t.equal(box.exec('cat', `${dirs.workspaceDir}/repo/done.txt`).trim(), 'done', 'the workspace');
  });

  // RC-06 and RC-08 are the runtime-contract cases themselves (tests/runtime-contract/support/shared-cases.ts).
  const running: RunningBox = {
    apiUrl: box.apiUrl,
    supervisorctl: (...args) => supervisorctl(box, ...args),
    kill: (pid) => void box.exec('node', '-e', 'process.kill(Number(process.argv[1]), "SIGKILL")', String(pid)),
    processes: () => containerProcesses(box),
    secrets: () => ({ apiKey: box.apiKey(), identity: box.exec('cat', boxFacts.runtime.files.identityKeyFile).trim() }),
    logs: () => box.logs(),
  };

  t.test('RC-06 in the container: kill -9 of the API, supervisord restarts it, readiness recovers', (t) => rc06KilledApiRestarts(t, running));

  t.test('RC-08 in the container: no secret in any environment or in the logs', async (t) => {
    const st = box.exec(
      'node',
      '-e',
      `const s=require('fs').statSync(process.argv[1]);process.stdout.write((s.mode&0o777).toString(8)+' '+s.uid)`,
      boxFacts.runtime.files.apiKeyFile,
    );
    t.equal(st, '600 1000', "the API key file is 0600, the box user's");
    await rc08NoSecretInEnvironmentOrLogs(t, running);
  });

  t.test('RC-07 in the container: docker-compose stop ends within 10 s, programmes stopped in reverse order', async (t) => {
    const t0 = Date.now();
    const stop = box.compose('stop');
    const ms = Date.now() - t0;
    t.equal(stop.status, 0, `docker-compose stop: ${stop.stderr}`);
    t.ok(ms < 10_000, `stopped in ${ms} ms`);
    const state = box.inspect()['State'];
    t.equal(state['ExitCode'], 0, 'the container exited 0 (supervisord shut down cleanly)');
    const logs = box.logs();
    // supervisord's own line (the API logs a "received SIGTERM" of its own a moment later).
    const since = logs.lastIndexOf('received SIGTERM indicating exit request');
    t.ok(since > 0, 'supervisord received SIGTERM');
    const stopped = logs
      .slice(since)
      .split('\n')
      .map((l) => /stopped: (\S+)/.exec(l)?.[1])
      .filter((n): n is string => n !== undefined);
    t.same(stopped, ['worker', 'management-api', 'egress-proxy', 'seal-listener'], 'highest priority number first, the seal listener last');
  });
});

// bubblewrap around the launcher, for real: what an agent inside sees, reaches and may start, who it is on the host, /proc either way.
import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentEnvironment } from '../../../management-api/src/adapters/orchestrator/agent-env.js';
import { createLogger } from '../../../management-api/src/observability/logger.js';
import { AgentSandbox } from '../../../management-api/src/sandbox/agent-sandbox.js';
import { AGENT_UID_BASE } from '../../../management-api/src/sandbox/agent-uids.js';
import { runEgressProxy } from '../../../management-api/src/egress/proxy-main.js';
import { launcherReady } from '../../../management-api/src/sandbox/namespace-sandbox.js';
import type { SandboxSettings } from '../../../management-api/src/sandbox/sandbox-settings.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import { doneCount, MEMORY_HOG } from '../../helpers/memory-hog.js';
import { buildLauncher } from '../../helpers/sandbox-launcher.js';

buildLauncher();
const root = mkdtempSync(path.join(tmpdir(), 'agentbox-nsbox-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const paths = runtimePaths({ AGENTBOX_ROOT: root });
for (const dir of ['a', 'b', 'c', 'd'].map((d) => path.join(paths.workspaceDir, d)).concat(paths.secretsDir, paths.runDir)) mkdirSync(dir, { recursive: true });
writeFileSync(path.join(paths.secretsDir, 'api-key'), 'the-api-key');
writeFileSync(path.join(paths.workspaceDir, 'b', 'notes.txt'), 'agent b only');
const limits = { memory: '2g', cpu_seconds: 600, processes: 40, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };

/** A loopback service standing in for the API: answers every connection with a line. */
async function loopbackService(t: Test): Promise<number> {
  const server = net.createServer((c) => c.end('from-the-api\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return (server.address() as net.AddressInfo).port;
}

/** A started sandbox; closed with the test. */
async function sandboxFor(t: Test, settings: Partial<SandboxSettings>): Promise<AgentSandbox> {
  const sandbox = new AgentSandbox({ enabled: true, namespaces: 'required', limits, egressPort: () => 3128, apiPort: () => undefined, paths, ...settings });
  await sandbox.start();
  t.teardown(() => sandbox.close());
  return sandbox;
}

/** Run `command args` as agent `id` in `dir` through `sandbox`, as the process manager does; its output and exit. */
async function runAgent(
  sandbox: AgentSandbox,
  dir: string,
  command: string,
  args: string[],
  memoryBudget?: number,
): Promise<{ out: string; code: number | null; signal: string | null; reports: string }> {
  const c = await sandbox.confine({
    id: `agt_${path.basename(dir)}`,
    name: path.basename(dir),
    command,
    args,
    cwd: path.join(paths.workspaceDir, dir),
    workspace: paths.workspaceDir,
    ...(memoryBudget ? { memoryBudget } : {}),
  });
  const child = spawn(c.command, c.args, {
    cwd: path.join(paths.workspaceDir, dir),
    env: { PATH: '/usr/bin:/bin', ...c.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe', ...(c.readyFd ? ['pipe' as const] : [])],
    ...c.ids,
  });
  // What the launcher says after its ready byte (its memory backstop's report), the same read's rest included.
  let reports = await launcherReady(child.stdio[3] as NodeJS.ReadableStream);
  child.stdio[3]?.on('data', (d: Buffer) => (reports += d));
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d));
  child.stderr!.on('data', (d: Buffer) => (out += d));
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('close', (code, signal) => resolve([code, signal])));
  await c.release();
  return { out, code, signal, reports };
}

t.test('an agent in its own namespaces, confined by the launcher inside', async (t) => {
  const apiPort = await loopbackService(t);
  const sandbox = await sandboxFor(t, { apiPort: () => apiPort });
  t.match(sandbox.status().namespaces, { setting: 'required', active: true, proc: 'fresh' });
  const seen = await runAgent(sandbox, 'a', process.execPath, [
    '-e',
    `
    const fs = require('fs'), net = require('net');
    const loaders = (process.env.NODE_OPTIONS ?? '').match(/file:[^" ]+/g) ?? [];
    const r = { state: fs.existsSync(${JSON.stringify(paths.stateDir)}), uid: process.getuid(), loaders: loaders.map((u) => fs.existsSync(new URL(u))) };
    fs.writeFileSync('out.txt', 'written');
    for (const p of [${JSON.stringify(path.join(paths.secretsDir, 'api-key'))}, ${JSON.stringify(path.join(paths.workspaceDir, 'b', 'notes.txt'))}]) { try { fs.readFileSync(p); r[p] = 'read'; } catch (e) { r[p] = e.code; } }
    try { fs.writeFileSync('/usr/x', 'x'); r.usr = 'written'; } catch (e) { r.usr = e.code; }
    r.pids = fs.readdirSync('/proc').filter((n) => /^[0-9]+$/.test(n)).length;
    const direct = new Promise((res) => net.connect(80, '192.0.2.1').on('connect', () => res('connected')).on('error', (e) => res(e.code)));
    const viaApi = new Promise((res) => { let d = ''; net.connect(${apiPort}, '127.0.0.1').on('data', (b) => d += b).on('end', () => res(d.trim())).on('error', (e) => res(e.code)); });
    Promise.all([direct, viaApi]).then(([d, a]) => { r.direct = d; r.api = a; console.log(JSON.stringify(r)); process.exit(0); });
  `,
  ]);
  t.equal(seen.code, 0, seen.out);
  // Under tap its spawn hook adds NODE_OPTIONS (a coverage loader in the checkout) to every child: what follows the
  // JSON line is that loader failing to write its report at exit (the checkout is read-only inside).
  const r = JSON.parse(seen.out.split('\n')[0]!) as Record<string, unknown>;
  t.equal(r['state'], false, 'no state directory inside');
  t.equal(r[path.join(paths.secretsDir, 'api-key')], 'ENOENT', 'the secrets do not exist inside');
  t.equal(r[path.join(paths.workspaceDir, 'b', 'notes.txt')], 'ENOENT', "another agent's directory does not exist inside");
  t.not(r['usr'], 'written', `system directories cannot be written (${String(r['usr'])})`);
  t.equal(readFileSync(path.join(paths.workspaceDir, 'a', 'out.txt'), 'utf8'), 'written', 'its own directory is writable');
  t.ok(
    (r['pids'] as number) <= 4,
    `a fresh /proc: only the sandbox's own processes (${String(r['pids'])}: bwrap's init, the launcher waiting for the agent, the agent, its forwarder)`,
  );
  t.equal(r['direct'], 'EACCES', 'no other TCP port (Landlock, before routing)');
  t.equal(r['api'], 'from-the-api', "the forwarded loopback port reaches the box's socket, and through it the API");
  t.notOk(
    (r['loaders'] as boolean[]).includes(false),
    'every loader NODE_OPTIONS names is visible inside (the checkout is bound at its own path, even under /tmp)',
  );
});

t.test("the API's own NODE_OPTIONS never reaches an agent (the environment is an allowlist)", async (t) => {
  const env = agentEnvironment({ PATH: '/usr/bin:/bin', NODE_OPTIONS: '--require /opt/hook.js' }, undefined, {});
  t.equal(env['NODE_OPTIONS'], undefined);
  t.equal(
    agentEnvironment({ PATH: '/bin' }, { NODE_OPTIONS: '--max-old-space-size=512' }, {})['NODE_OPTIONS'],
    '--max-old-space-size=512',
    'a spawn request may set it (its paths must then be visible to the agent)',
  );
});

t.test('the process limit is per agent: a fork bomb stops at it, the box forks on', async (t) => {
  const sandbox = await sandboxFor(t, { limits: { ...limits, processes: 20 } });
  const forks =
    'import os, signal\nkids = []\ntry:\n    for _ in range(40):\n        pid = os.fork()\n        if pid == 0:\n            signal.pause()\n        kids.append(pid)\nexcept OSError as e:\n    print("refused", e.strerror)\nprint("started", len(kids))\nfor k in kids:\n    os.kill(k, 9)';
  const bomb = await runAgent(sandbox, 'a', '/usr/bin/python3', ['-c', forks]);
  const n = Number(/started (\d+)/.exec(bomb.out)?.[1]);
  t.ok(n > 0 && n < 20, `stopped below the limit of 20 (${n} children): ${bomb.out}`);
  t.match(bomb.out, /refused Resource temporarily unavailable/, 'fork refused with EAGAIN');
  const after = spawn('/bin/true');
  t.equal(await new Promise((resolve) => after.on('close', resolve)), 0, 'the box itself still starts processes');
});

t.test('exit status and signals read as for a plain spawn', async (t) => {
  const sandbox = await sandboxFor(t, {});
  t.match(await runAgent(sandbox, 'a', '/bin/sh', ['-c', 'exit 7']), { code: 7, signal: null }, 'an exit status passes');
  t.match(await runAgent(sandbox, 'a', '/bin/sh', ['-c', 'kill -USR1 $$']), { code: null, signal: 'SIGUSR1' }, 'a signal passes');
  t.match(
    await runAgent(sandbox, 'a', '/bin/sh', ['-c', 'exit 137']),
    { code: 137, signal: null },
    'a status of 129…159 stays a status (bubblewrap alone would report SIGKILL as 137)',
  );
  t.match(await runAgent(sandbox, 'a', '/bin/sh', ['-c', 'kill -KILL $$']), { code: null, signal: 'SIGKILL' }, 'SIGKILL passes as a signal');
  // SIGTERM to the group (as terminate sends it) once the agent set its handler: the handler runs, the grace is kept.
  const c = await sandbox.confine({
    id: 'agt_term',
    name: 'term',
    command: '/bin/sh',
    args: ['-c', 'trap "echo graceful; exit 3" TERM; echo trapped; while :; do sleep 0.05; done'],
    cwd: path.join(paths.workspaceDir, 'c'),
    workspace: paths.workspaceDir,
  });
  const child = spawn(c.command, c.args, {
    cwd: path.join(paths.workspaceDir, 'c'),
    env: { PATH: '/usr/bin:/bin' },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    ...c.ids,
  });
  // What the launcher says after its ready byte (its memory backstop's report), the same read's rest included.
  let reports = await launcherReady(child.stdio[3] as NodeJS.ReadableStream);
  child.stdio[3]?.on('data', (d: Buffer) => (reports += d));
  let out = '';
  await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => (out += d) && /trapped/.test(out) && resolve()));
  process.kill(-child.pid!, 'SIGTERM');
  const code = await new Promise((resolve) => child.on('close', resolve));
  await c.release();
  t.equal(code, 3, 'the agent ended through its own SIGTERM handler');
  t.match(out, /graceful/);
});

t.test('a SIGKILL to the group the box leads ends the whole sandbox, an agent that ignores SIGTERM too', async (t) => {
  const sandbox = await sandboxFor(t, {});
  // A marker no other process has: what is left of the agent is found by it on the host.
  const marker = `${31 + Math.random()}`.slice(0, 9);
  const c = await sandbox.confine({
    id: 'agt_kill',
    name: 'kill',
    command: '/bin/sh',
    args: ['-c', `trap "" TERM; echo started; sleep ${marker}`],
    cwd: path.join(paths.workspaceDir, 'c'),
    workspace: paths.workspaceDir,
  });
  const child = spawn(c.command, c.args, {
    cwd: path.join(paths.workspaceDir, 'c'),
    env: { PATH: '/usr/bin:/bin' },
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    ...c.ids,
  });
  await launcherReady(child.stdio[3] as NodeJS.ReadableStream);
  await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => /started/.test(String(d)) && resolve()));
  const closed = new Promise((resolve) => child.on('close', (_code, signal) => resolve(signal)));
  process.kill(-child.pid!, 'SIGKILL');
  t.equal(await closed, 'SIGKILL');
  await c.release();
  // bubblewrap goes with the wrapper (--die-with-parent) and the PID namespace with bubblewrap; give the kernel a moment.
  const left = async (): Promise<string> =>
    new Promise((resolve) => {
      const ps = spawn('pgrep', ['-f', `sleep ${marker}`], { stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      ps.stdout.on('data', (d: Buffer) => (out += d));
      ps.on('close', () => resolve(out.trim()));
    });
  let found = await left();
  for (let i = 0; found && i < 50; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    found = await left();
  }
  t.equal(found, '', 'no process of the agent is left');
});

t.test('the egress proxy listens on its sandbox socket itself; an agent running across a proxy restart reaches the new one', async (t) => {
  const manifest = path.join(root, 'egress.toml');
  writeFileSync(manifest, '[sandbox.egress]\nallow_domains = ["example.test"]\n');
  const env = { AGENTBOX_ROOT: root, AGENTBOX_MANIFEST: manifest, AGENTBOX_EGRESS_PORT: '0' };
  const silent = createLogger({ level: 'silent' });
  let proxy = await runEgressProxy(env, silent);
  t.teardown(() => proxy.close());
  const sandbox = await sandboxFor(t, {});
  // Each ask is a request without a credential: the proxy's 407 shows the proxy answered.
  const agent =
    "import os, socket, time\ndef ask():\n    s = socket.create_connection(('127.0.0.1', 3128))\n    s.sendall(b'GET http://example.test/ HTTP/1.1\\r\\nHost: example.test\\r\\n\\r\\n')\n    line = s.recv(64).split(b'\\r\\n')[0].decode()\n    s.close()\n    return line or 'nothing'\nprint('first', ask(), flush=True)\nwhile not os.path.exists('go'): time.sleep(0.02)\nprint('second', ask(), flush=True)";
  const dir = path.join(paths.workspaceDir, 'c');
  rmSync(path.join(dir, 'go'), { force: true });
  const c = await sandbox.confine({
    id: 'agt_restart',
    name: 'restart',
    command: '/usr/bin/python3',
    args: ['-c', agent],
    cwd: dir,
    workspace: paths.workspaceDir,
  });
  const child = spawn(c.command, c.args, { cwd: dir, env: { PATH: '/usr/bin:/bin' }, detached: true, stdio: ['ignore', 'pipe', 'inherit', 'pipe'], ...c.ids });
  // What the launcher says after its ready byte (its memory backstop's report), the same read's rest included.
  let reports = await launcherReady(child.stdio[3] as NodeJS.ReadableStream);
  child.stdio[3]?.on('data', (d: Buffer) => (reports += d));
  let out = '';
  await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => (out += d) && /first/.test(out) && resolve()));
  await proxy.close();
  proxy = await runEgressProxy(env, silent);
  writeFileSync(path.join(dir, 'go'), '');
  const code = await new Promise((resolve) => child.on('close', resolve));
  await c.release();
  t.equal(code, 0, out);
  t.match(out, /first HTTP\/1\.1 407/, 'the agent reached the proxy through its socket');
  t.match(out, /second HTTP\/1\.1 407/, 'and the restarted proxy through the socket it made again');
});

t.test('what an agent leaves running ends with it (its PID namespace goes with its first process)', async (t) => {
  const sandbox = await sandboxFor(t, {});
  const late = path.join(paths.workspaceDir, 'c', 'late');
  t.match(await runAgent(sandbox, 'c', '/bin/sh', ['-c', '(sleep 0.3; touch late) >/dev/null 2>&1 & exit 0']), { code: 0 });
  // Had the background process survived, it would have written the file 0.3 s after the start.
  await new Promise((resolve) => setTimeout(resolve, 800));
  t.notOk(existsSync(late), 'the leftover process was killed with the namespace');
});

t.test(
  'as root, each agent name is an unprivileged uid of its own on the host',
  { skip: process.getuid?.() !== 0 ? 'needs root (CI and the test machine run as root)' : false },
  async (t) => {
    const claims = mkdtempSync(path.join(tmpdir(), 'agentbox-uid-claims-'));
    t.teardown(() => rmSync(claims, { recursive: true, force: true }));
    const sandbox = await sandboxFor(t, { agentUidClaims: claims });
    const c = await sandbox.confine({
      id: 'agt_root',
      name: 'rooted',
      command: '/bin/sleep',
      args: ['30'],
      cwd: path.join(paths.workspaceDir, 'c'),
      workspace: paths.workspaceDir,
    });
    t.ok(c.ids && c.ids.uid >= AGENT_UID_BASE && c.ids.gid === c.ids.uid, `a uid and gid of the agents' range (${JSON.stringify(c.ids)})`);
    t.equal(statSync(path.join(paths.workspaceDir, 'c')).uid, c.ids?.uid, 'its directory is given to it');
    t.equal(statSync(path.join(paths.workspaceDir, 'c')).mode & 0o077, 0, 'and closed to every other uid');
    const child = spawn(c.command, c.args, {
      cwd: path.join(paths.workspaceDir, 'c'),
      detached: true,
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      ...c.ids,
    });
    await launcherReady(child.stdio[3] as NodeJS.ReadableStream);
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    t.match(status, new RegExp(`^Uid:\\s+${c.ids!.uid}\\s+${c.ids!.uid}\\s+${c.ids!.uid}\\s+${c.ids!.uid}$`, 'm'), 'real, effective, saved and fs uid');
    t.match(status, /^Groups:\s*$/m, 'no supplementary groups');
    process.kill(-child.pid!, 'SIGTERM');
    const [, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
    await c.release();
    t.equal(signal, 'SIGTERM', 'ends as a plain spawn would');
    const other = await sandbox.confine({
      id: 'agt_other',
      name: 'other',
      command: '/bin/true',
      args: [],
      cwd: path.join(paths.workspaceDir, 'd'),
      workspace: paths.workspaceDir,
    });
    await other.release();
    t.not(other.ids?.uid, c.ids?.uid, 'another name, another uid');
    const again = await sandbox.confine({
      id: 'agt_again',
      name: 'rooted',
      command: '/bin/true',
      args: [],
      cwd: path.join(paths.workspaceDir, 'c'),
      workspace: paths.workspaceDir,
    });
    await again.release();
    t.same(again.ids, c.ids, 'the same name, the same uid');
  },
);

t.test('required refuses to spawn where namespaces cannot be used; auto runs the launcher alone', async (t) => {
  const missing = path.join(root, 'no-bwrap');
  const required = await sandboxFor(t, { bwrap: missing });
  t.match(required.status().namespaces, { setting: 'required', active: false, reason: /not found \(install bubblewrap\)/ });
  await t.rejects(
    required.confine({ id: 'agt_r', name: 'r', command: '/bin/true', args: [], cwd: path.join(paths.workspaceDir, 'a'), workspace: paths.workspaceDir }),
    { code: 'ABX_ERR_CONFLICT', message: /sandbox\.namespaces = "required".*not found.*sandbox-namespaces/ },
  );
  const auto = await sandboxFor(t, { bwrap: missing, namespaces: 'auto' });
  const plain = await runAgent(auto, 'a', '/bin/sh', ['-c', 'grep -c . /proc/self/uid_map; grep Seccomp: /proc/self/status']);
  t.match(plain.out, /^1\n/, 'auto: no user namespace of its own (the initial uid map)');
  t.match(plain.out, /Seccomp:\s+2/, 'auto: still confined by the launcher');
  const off = await sandboxFor(t, { namespaces: 'off' });
  t.same(off.status().namespaces, { setting: 'off' }, 'off: never probed');
});

// Inside the container a fresh procfs cannot be mounted (Docker masks /proc paths): bubblewrap binds the outer /proc
// read-only. The seam forces that mode on a host; bwrap really runs with --ro-bind /proc /proc.
t.test("the /proc fallback: the box's processes are listed, their environment and root stay unreadable", async (t) => {
  const sandbox = await sandboxFor(t, { proc: 'ro-bind' });
  t.match(sandbox.status().namespaces, { active: true, proc: 'ro-bind' });
  const other = spawn('/bin/sleep', ['30'], { env: { AGENTBOX_TEST_SECRET: 'abx_other_environ' }, stdio: 'ignore' });
  t.teardown(() => other.kill());
  await new Promise((resolve) => other.once('spawn', resolve));
  const probe = `import os, json
r = {}
for name, p in (('apiEnviron', '/proc/${process.pid}/environ'), ('otherEnviron', '/proc/${other.pid}/environ'), ('otherRoot', '/proc/${other.pid}/root/etc/hostname'), ('ownEnviron', '/proc/self/environ')):
    try:
        open(p, 'rb').read(); r[name] = 'read'
    except OSError as e:
        r[name] = e.strerror
r['apiListed'] = os.path.exists('/proc/${process.pid}')
print(json.dumps(r))`;
  const seen = await runAgent(sandbox, 'a', '/usr/bin/python3', ['-c', probe]);
  t.equal(seen.code, 0, seen.out);
  const r = JSON.parse(seen.out) as Record<string, unknown>;
  t.equal(r['apiListed'], true, "the outer /proc: the box's processes are listed");
  t.match(
    r,
    { apiEnviron: 'Permission denied', otherEnviron: 'Permission denied', otherRoot: 'Permission denied' },
    "another process's environ and root stay unreadable",
  );
  t.equal(r['ownEnviron'], 'read', 'its own environ is readable');
  t.notMatch(seen.out, /abx_other_environ/);
});

// With the outer /proc the pids are the outer ones: the parent finds the namespace's init from
// /proc/self, and counts processes that detached from the agent (re-parented to that init).
t.test('the /proc fallback: the memory backstop finds every process of the sandbox in the outer /proc', async (t) => {
  const sandbox = await sandboxFor(t, { proc: 'ro-bind' });
  for (const [dir, detach] of [
    ['hog-attached', '0'],
    ['hog-detached', '1'],
  ] as const) {
    mkdirSync(path.join(paths.workspaceDir, dir), { recursive: true });
    writeFileSync(path.join(paths.workspaceDir, dir, 'hog.py'), MEMORY_HOG);
    // 16 × 96 MiB against 128 MiB: the line is 1.25 × 128 = 160 MiB of resident memory.
    const seen = await runAgent(sandbox, dir, '/usr/bin/python3', ['hog.py', '16', '96', detach], 128 * 2 ** 20);
    t.equal(seen.signal, 'SIGKILL', `${dir}: killed (${seen.out})`);
    const reported = /^limit:memory (\d+)\n$/.exec(seen.reports);
    t.ok(reported && Number(reported[1]) > 160 * 2 ** 20, `${dir}: the report names the resident bytes past the line: ${JSON.stringify(seen.reports)}`);
    const done = doneCount(readdirSync(path.join(paths.workspaceDir, dir)));
    t.ok(done <= 1, `${dir}: at most one child filled its memory before the end (${done} of 16)`);
  }
});

// Docker mounts /proc/sys read-only and masks /proc paths: bwrap run inside an outer bwrap set up
// the same way, as the container's box runs it. The probe finds --disable-userns impossible there
// and the agent still starts, in its own namespaces, confined by the launcher inside.
t.test('under a Docker-like /proc (read-only /proc/sys): agents run without --disable-userns', async (t) => {
  const wrapper = path.join(root, 'bwrap-docker-like');
  writeFileSync(
    wrapper,
    '#!/bin/sh\nexec /usr/bin/bwrap --unshare-user --unshare-pid --bind / / --proc /proc --ro-bind /proc/sys /proc/sys --ro-bind /dev/null /proc/keys --dev /dev -- /usr/bin/bwrap "$@"\n',
  );
  chmodSync(wrapper, 0o755);
  const apiPort = await loopbackService(t);
  const sandbox = await sandboxFor(t, { apiPort: () => apiPort, bwrap: wrapper });
  t.match(sandbox.status().namespaces, { active: true, proc: 'ro-bind', disableUserns: false });
  const seen = await runAgent(sandbox, 'c', process.execPath, [
    '-e',
    `
    const fs = require('fs'), net = require('net');
    const r = { pid: process.pid, interfaces: fs.readFileSync('/proc/self/net/dev', 'utf8').split('\\n').slice(2).map((l) => l.split(':')[0].trim()).filter(Boolean) };
    try { fs.readFileSync('/proc/1/environ'); r.init = 'read'; } catch (e) { r.init = e.code; }
    const direct = new Promise((res) => net.connect(${apiPort}, '192.0.2.1').on('connect', () => res('connected')).on('error', (e) => res(e.code)));
    const viaApi = new Promise((res) => { let d = ''; net.connect(${apiPort}, '127.0.0.1').on('data', (b) => d += b).on('end', () => res(d.trim())).on('error', (e) => res(e.code)); });
    Promise.all([direct, viaApi]).then(([d, a]) => { r.direct = d; r.api = a; console.log(JSON.stringify(r)); process.exit(0); });
  `,
  ]);
  t.equal(seen.code, 0, seen.out);
  const r = JSON.parse(seen.out.split('\n')[0]!) as Record<string, unknown>;
  t.ok((r['pid'] as number) < 10, `its own PID namespace (pid ${String(r['pid'])})`);
  t.equal(r['init'], 'EACCES', "the outer PID 1's environ is denied");
  t.same(r['interfaces'], ['lo'], 'only loopback');
  t.equal(r['direct'], 'ENETUNREACH', 'the API port on another address: no route out');
  t.equal(r['api'], 'from-the-api', 'the forwarded port reaches the API');
});

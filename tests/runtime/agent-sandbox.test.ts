// Agents spawned through the real local orchestrator and the real launcher: what a confined agent can and cannot do.
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { collect, ended } from '../contract/orchestrator.contract.js';
import { onlySlot, startSlot } from '../contract/pods-harness.js';
import { buildLauncher } from '../helpers/sandbox-launcher.js';
import { AGENT_UID_BASE } from '../../management-api/src/sandbox/agent-uids.js';

const probe = path.join(path.dirname(fileURLToPath(import.meta.url)), 'agent-sandbox-probe.py');
const PYTHON = '/usr/bin/python3';
buildLauncher();

/** A TCP listener on 127.0.0.1 that accepts and closes; its port. */
async function listener(t: Test): Promise<number> {
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** The same on a unix socket at `socket`. */
async function unixListener(t: Test, socket: string): Promise<void> {
  mkdirSync(path.dirname(socket), { recursive: true });
  const server = net.createServer((s) => s.destroy());
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  // Connectable by every user, as the proxy makes its own: as root the agent's forwarder runs as uid 65534.
  chmodSync(socket, 0o666);
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
}

const LIMITS = '[sandbox.limits]\nmemory = "1g"\ncpu_seconds = 120\nopen_files = 256\nfile_size = "64m"\n';

// The same attempts with Landlock alone and inside bubblewrap: there, what is not granted does not even exist (ENOENT),
// and the API's process is not in the agent's PID namespace (ESRCH).
const MODES = {
  off: { layer: 'Landlock, seccomp and rlimits alone', absent: 'EACCES', foreignPid: 'EPERM' },
  required: { layer: 'inside bubblewrap', absent: 'ENOENT', foreignPid: 'ESRCH' },
} as const;

for (const [namespaces, expect] of Object.entries(MODES)) {
  t.test(
    `a confined agent (${expect.layer}): its own directory only, TCP to the allowed ports only, no UDP, ptrace, namespaces or raised limits`,
    async (t) => {
      const allowedPort = await listener(t);
      const deniedPort = await listener(t);
      const h = await startSlot(
        'orchestrator',
        onlySlot('orchestrator', 'local-procmgr', `[sandbox]\nnamespaces = "${namespaces}"\n${LIMITS}[sandbox.egress]\nport = ${allowedPort}\n`),
      );
      t.teardown(() => h.close());
      const { paths } = h;
      mkdirSync(paths.secretsDir, { recursive: true });
      const secret = path.join(paths.secretsDir, 'api-key');
      writeFileSync(secret, 'abx_secret', { mode: 0o600 });
      mkdirSync(path.join(paths.workspaceDir, 'other'), { recursive: true });
      const otherFile = path.join(paths.workspaceDir, 'other', 'notes.txt');
      writeFileSync(otherFile, 'private');
      mkdirSync(paths.tmpDir, { recursive: true });
      // In bubblewrap the agent reaches the egress port through its forwarder and the proxy's socket:
      // served here the way the listener serves the port (accept and close).
      if (namespaces === 'required') await unixListener(t, paths.sandboxEgressSocket);
      const args = { secret, otherFile, workspace: paths.workspaceDir, sharedTmp: paths.tmpDir, apiPid: process.pid, allowedPort, deniedPort };

      // In the agent's own directory: of the installation, agents read only its code (dist, node_modules …), not tests/.
      mkdirSync(path.join(paths.workspaceDir, 'prober'), { recursive: true });
      copyFileSync(probe, path.join(paths.workspaceDir, 'prober', 'probe.py'));
      const agent = await h.ops.spawn({ name: 'prober', command: PYTHON, args: ['probe.py', JSON.stringify(args)] });
      const text = (await collect(h.ops, agent.id)).map((c) => c.text).join('');
      t.match(await ended(h.ops, agent.id), { state: 'exited', exitCode: 0 }, text);
      const r = JSON.parse(text.trim().split('\n').pop()!) as Record<string, unknown>;
      t.match(r, { seccomp: '2', noNewPrivs: '1' }, 'the agent runs under its seccomp filter with no_new_privs');
      // As root the box runs each agent name as a uid of its own, in both modes: an agent shares no uid with the box's files and processes, nor with another agent.
      const asRoot = process.getuid?.() === 0;
      const [uid] = r['ids'] as number[];
      t.same(
        r['ids'],
        asRoot ? [uid, uid, []] : [process.getuid?.(), process.getgid?.(), r['ids'] && (r['ids'] as unknown[])[2]],
        asRoot ? 'as root, the agent runs as a uid and gid of its own without supplementary groups' : "the agent runs as the box's uid (it cannot switch)",
      );
      if (asRoot) t.ok(uid! >= AGENT_UID_BASE, `as root, the uid (${uid}) is of the agents' range`);
      // The bounding set can be emptied only by a process that holds CAP_SETPCAP: a root agent. As nobody
      // under no_new_privs the agent cannot gain a capability (neither set-uid nor file capabilities apply).
      const [eff, prm, bnd, amb] = r['capabilities'] as string[];
      t.same([eff, prm, amb], Array(3).fill('0000000000000000'), 'no effective, permitted or ambient capability');
      if ((r['ids'] as number[])[0] === 0) t.equal(bnd, '0000000000000000', 'a root agent has an empty bounding set');
      t.match(
        r,
        { readSecret: expect.absent, readOtherAgent: expect.absent, writeWorkspaceRoot: 'EACCES', writeSharedTmp: 'EACCES', readApiEnviron: expect.absent },
        'files outside its grants are denied',
      );
      t.match(r, { writeOwn: 'ok', writePrivateTmp: 'ok' }, 'its own directory and private TMPDIR are writable');
      t.match(r, { signalApi: expect.foreignPid, ptraceAttach: 'EPERM' }, 'the API cannot be signalled or traced (seccomp refuses ptrace itself)');
      t.match(r, { connectAllowed: 'ok', connectDenied: 'EACCES' }, 'TCP connect only to the allowed port');
      t.match(
        r,
        { udpSocket: 'EPERM', udp6Socket: 'EPERM', rawSocket: 'EPERM', netlinkSocket: 'EPERM', packetSocket: 'EPERM', unixSocket: 'EPERM', socketpair: 'ok' },
        'only TCP sockets and socket pairs',
      );
      t.match(r, { unshareUser: 'EPERM', unshareNet: 'EPERM' }, 'no new namespaces');
      t.match(r, { raiseNofile: 'ValueError' }, 'a limit cannot be raised');
      t.same(
        r['rlimits'],
        { data: [2 ** 30, 2 ** 30], cpu: [120, 120], nofile: [256, 256], fsize: [64 * 2 ** 20, 64 * 2 ** 20] },
        'rlimits from the manifest, soft = hard',
      );
      const env = r['env'] as { TMPDIR: string; HOME: string };
      t.ok(env.TMPDIR.startsWith(paths.tmpDir + path.sep), 'TMPDIR is a private directory under the box tmp');
      t.equal(env.HOME, env.TMPDIR, 'HOME is that directory too');
    },
  );
}

t.test('working directories: own by default, never the workspace root, never shared with a running agent', async (t) => {
  const h = await startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr'));
  t.teardown(() => h.close());
  mkdirSync(path.join(h.paths.workspaceDir, 'shared', 'sub'), { recursive: true });
  const sleeper = await h.ops.spawn({ name: 'holder', command: 'sleep', args: ['30'], cwd: 'shared' });
  for (const cwd of ['shared', 'shared/sub']) {
    await t.rejects(
      h.ops.spawn({ name: 'intruder', command: '/bin/true', args: [], cwd }),
      { code: 'ABX_ERR_CONFLICT', message: /overlaps the directory of running agent/ },
      `cwd ${cwd}`,
    );
  }
  for (const cwd of ['.', '']) {
    await t.rejects(
      h.ops.spawn({ name: 'intruder', command: '/bin/true', args: [], cwd }),
      { code: 'ABX_ERR_VALIDATION', message: /workspace itself is shared/ },
      `cwd ${JSON.stringify(cwd)}`,
    );
  }
  await h.ops.terminate(sleeper.id, 1000);
  const after = await h.ops.spawn({ name: 'intruder', command: '/bin/true', args: [], cwd: 'shared' });
  t.match(await ended(h.ops, after.id), { state: 'exited' }, 'the directory is free once its agent ended');
});

t.test('fail closed: a kernel without the required Landlock ABI refuses the spawn and names what is missing', async (t) => {
  const { create } = await import('../../management-api/src/adapters/orchestrator/local-procmgr.js');
  const { AgentSandbox } = await import('../../management-api/src/sandbox/agent-sandbox.js');
  const h = await startSlot('orchestrator', onlySlot('orchestrator', 'off'));
  t.teardown(() => h.close());
  const { createLogger } = await import('../../management-api/src/observability/logger.js');
  const limits = { memory: '1g', cpu_seconds: 60, processes: 64, open_files: 256, file_size: '1g', disk: '10g', entries: 200_000 };
  const base = { enabled: true, namespaces: 'off' as const, limits, egressPort: () => 3128, apiPort: () => undefined, paths: h.paths };
  const cases = [
    // The launcher's test-only --require-abi asks for more than any kernel has: as if the kernel were older.
    { sandbox: new AgentSandbox({ ...base, requireAbi: 99 }), message: /Landlock ABI 99 is required, the kernel has ABI \d+/ },
    {
      sandbox: new AgentSandbox({ ...base, launcher: path.join(h.paths.root, 'no-such-launcher') }),
      message: /launcher .*no-such-launcher is missing or not executable/,
    },
  ];
  const { createLimitMetrics } = await import('../../management-api/src/sandbox/limits/metrics.js');
  const { Registry } = await import('prom-client');
  const settings = { enabled: true, namespaces: 'off' as const, limits, egress: { port: 3128, allow_domains: [], allow_ports: [443], transparent: false } };
  for (const { sandbox, message } of cases) {
    const context = { settings, limitMetrics: createLimitMetrics(new Registry()), confinement: sandbox };
    const adapter = create({
      slot: 'orchestrator',
      settings: {} as never,
      paths: h.paths,
      logger: createLogger({ level: 'silent' }),
      env: { PATH: process.env['PATH'] },
      sandbox: context,
    });
    await adapter.connect(AbortSignal.timeout(10_000));
    t.teardown(() => adapter.close());
    t.same((await adapter.health(AbortSignal.timeout(5_000))).state, 'healthy', 'the orchestrator itself stays up (listing, status, terminate)');
    await t.rejects(
      adapter.spawn({ name: 'refused', command: '/bin/true', args: [] }),
      { code: 'ABX_ERR_SANDBOX_UNAVAILABLE', statusCode: 503, message },
      String(message),
    );
    t.same(await adapter.list(), [], 'nothing was started');
    t.match(sandbox.status(), { enabled: true, mode: 'unavailable', missing: message });
  }
});

t.test('sandbox.enabled = false (acknowledged): agents run unconfined', async (t) => {
  const h = await startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr', '[security]\naudit_acknowledged = true\n[sandbox]\nenabled = false\n'));
  t.teardown(() => h.close());
  mkdirSync(h.paths.secretsDir, { recursive: true });
  writeFileSync(path.join(h.paths.secretsDir, 'api-key'), 'abx_visible', { mode: 0o600 });
  const agent = await h.ops.spawn({
    name: 'free',
    command: '/bin/sh',
    args: ['-c', `grep -h '^Seccomp:' /proc/self/status; cat ${path.join(h.paths.secretsDir, 'api-key')}`],
  });
  const text = (await collect(h.ops, agent.id)).map((c) => c.text).join('');
  t.match(text, /Seccomp:\s+0/, 'no seccomp filter');
  t.match(text, /abx_visible/, 'the secret is readable: this is what the acknowledgement accepts');
});

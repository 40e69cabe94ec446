// The process around bubblewrap (the launcher's --wrap), the launcher's status record, and the per-box reachability checks, for real: statuses, signals, the ready pipe, refusals.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AgentSandbox } from '../../../management-api/src/sandbox/agent-sandbox.js';
import { installedLauncher } from '../../../management-api/src/sandbox/launcher-binary.js';
import { runtimePaths } from '../../../management-api/src/runtime-paths.js';
import { buildLauncher } from '../../helpers/sandbox-launcher.js';

buildLauncher();
const launcher = installedLauncher();

/** Run `--wrap -- /bin/sh -c script` with a pipe as fd 3; its exit and how long that pipe stayed open. */
function wrapped(script: string, onStart?: (pid: number) => void): Promise<{ code: number | null; signal: string | null; out: string; pipeOpenMs: number }> {
  const child = spawn(launcher, ['--wrap', '--', '/bin/sh', '-c', script], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'], detached: true });
  let out = '';
  const started = performance.now();
  let pipeClosed = NaN;
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
    if (/started/.test(out) && onStart) onStart(child.pid!);
  });
  (child.stdio[3] as NodeJS.ReadableStream).on('close', () => (pipeClosed = performance.now()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out, pipeOpenMs: pipeClosed - started })));
}

t.test('--wrap: a status passes, 129…159 reads as the signal, a signal passes', async (t) => {
  t.match(await wrapped('exit 7'), { code: 7, signal: null });
  t.match(await wrapped('exit 130'), { code: null, signal: 'SIGINT' }, "bubblewrap's 128+n for an agent killed by signal n");
  t.match(await wrapped('kill -KILL $$'), { code: null, signal: 'SIGKILL' });
  t.match(await wrapped('exit 156'), { code: 156, signal: null }, 'a signal whose default is to go on (SIGWINCH) falls back to the status');
});

/** The launcher itself, confined to the system directories, as the command --wrap runs: it writes the status record. */
const inside = (script: string): string[] => [
  launcher,
  '--ro',
  '/usr',
  '--ro',
  '/bin',
  '--ro',
  '/lib',
  '--ro',
  '/lib64',
  '--ro',
  '/etc',
  '--status-fd',
  '4',
  '--ready-fd',
  '3',
  '--',
  '/bin/sh',
  '-c',
  script,
];

/** Run `--wrap -- <inside(script)>`; its exit and stdout. */
function wrappedLauncher(script: string, onStart?: (pid: number) => void): Promise<{ code: number | null; signal: string | null; out: string }> {
  const child = spawn(launcher, ['--wrap', '--', ...inside(script)], { stdio: ['ignore', 'pipe', 'inherit', 'pipe'], detached: true });
  let out = '';
  let started = false;
  child.stdout!.on('data', (d: Buffer) => {
    out += d;
    // Once: a second signal while the agent ends would test the agent, not the wrapper.
    if (!started && /started/.test(out) && onStart) {
      started = true;
      onStart(child.pid!);
    }
  });
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, out })));
}

t.test('--wrap with the launcher inside on --status-fd: the exact status passes, 129…159 stays a status', async (t) => {
  t.match(await wrappedLauncher('exit 7'), { code: 7, signal: null });
  t.match(await wrappedLauncher('exit 137'), { code: 137, signal: null }, 'an agent that exits 137 is not read as killed by SIGKILL');
  t.match(await wrappedLauncher('exit 130'), { code: 130, signal: null });
  t.match(await wrappedLauncher('kill -KILL $$'), { code: null, signal: 'SIGKILL' }, 'a signal passes as a signal');
  t.match(await wrappedLauncher('kill -TERM $$'), { code: null, signal: 'SIGTERM' }, "the agent's SIGTERM is its own (default disposition)");
  t.match(await wrappedLauncher('/nonexistent/agent'), { code: 127, signal: null });
});

t.test('--status-fd: a SIGTERM to the group reaches the agent; the waiting parent outlives it and reports', async (t) => {
  const agent =
    'import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *a: (print("graceful", flush=True), sys.exit(3)))\nprint("started", flush=True)\ntime.sleep(20)';
  const r = await wrappedLauncher(`exec python3 -c '${agent}'`, (pid) => process.kill(-pid, 'SIGTERM'));
  t.match(r.out, /graceful/, "the agent's handler ran");
  t.match(r, { code: 3, signal: null }, "the agent's own status after its graceful end");
  // The box signals the wrapper's group: the wrapper passes that on, and the agent must get one SIGTERM, not two.
  const counter =
    'import signal, time\nn = []\nsignal.signal(signal.SIGTERM, lambda *a: n.append(1))\nprint("started", flush=True)\nwhile not n: time.sleep(0.01)\ntime.sleep(0.3)\nprint("terms", len(n), flush=True)';
  const counted = await wrappedLauncher(`exec python3 -c '${counter}'`, (pid) => process.kill(-pid, 'SIGTERM'));
  t.match(counted.out, /terms 1\n/, 'one SIGTERM reached the agent');
  const killed = await wrappedLauncher('echo started; sleep 20', (pid) => process.kill(pid, 'SIGTERM'));
  t.match(killed, { code: null, signal: 'SIGTERM' }, 'a SIGTERM to the wrapper alone ends an agent without a handler, read as SIGTERM');
});

t.test('--status-fd must name an open descriptor', async (t) => {
  const child = spawn(launcher, ['--ro', '/usr', '--status-fd', '9', '--', '/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 64);
  t.match(err, /--status-fd must name an open descriptor above 2/);
});

t.test('--memory-limit needs a launcher that stays beside the agent (--keep or --status-fd)', async (t) => {
  const child = spawn(launcher, ['--ro', '/usr', '--memory-limit', '1000000', '--', '/bin/true'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  t.equal(await new Promise((resolve) => child.on('close', resolve)), 64);
  t.match(err, /--memory-limit needs --keep or --status-fd/);
});

t.test('--wrap: a SIGTERM to the wrapper reaches the sandbox group once; the command itself ignores it', async (t) => {
  // The command runs with SIGTERM ignored (as bubblewrap must: a shell cannot even trap it); a child that sets a
  // handler of its own (as the agent does once the launcher reset its dispositions) gets it.
  const agent =
    'import signal, sys, time\nsignal.signal(signal.SIGTERM, lambda *a: (print("graceful", flush=True), sys.exit(0)))\nprint("started", flush=True)\ntime.sleep(20)';
  const script = `python3 -c '${agent}'; echo sh-survived`;
  const r = await wrapped(script, (pid) => process.kill(pid, 'SIGTERM'));
  t.match(r.out, /graceful/, "the inner process's handler ran");
  t.match(r.out, /sh-survived/, 'the command in the place of bubblewrap went on (SIGTERM ignored)');
  t.equal(r.code, 0);
});

t.test('--wrap keeps no copy of the ready pipe: it closes with the sandbox, not with the wrapper', async (t) => {
  // The command closes its copy at once and lives 2 s on: the pipe must close well before that.
  const r = await wrapped('exec 3>&-; sleep 2');
  t.ok(r.pipeOpenMs < 1500, `the pipe closed while the wrapper still waited (after ${Math.round(r.pipeOpenMs)} ms)`);
  t.match(await wrapped(''), { code: 0 });
});

t.test('--wrap without a command is a usage error; a missing command is 127', async (t) => {
  const usage = spawn(launcher, ['--wrap', '--'], { stdio: 'ignore' });
  t.equal(await new Promise((resolve) => usage.on('close', resolve)), 64);
  const missing = spawn(launcher, ['--wrap', '--', '/nonexistent/bwrap'], { stdio: 'ignore' });
  t.equal(await new Promise((resolve) => missing.on('close', resolve)), 127);
});

t.test(
  'as root: a bound path the agents cannot reach refuses the spawn until it is opened',
  { skip: process.getuid?.() !== 0 ? 'needs root (CI and the test machine run as root)' : false },
  async (t) => {
    const root = mkdtempSync(path.join(tmpdir(), 'agentbox-reach-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    chmodSync(root, 0o711);
    const closed = path.join(root, 'closed');
    mkdirSync(path.join(closed, 'tools'), { recursive: true });
    chmodSync(closed, 0o700);
    const paths = runtimePaths({ AGENTBOX_ROOT: path.join(root, 'box') });
    mkdirSync(path.join(paths.workspaceDir, 'a'), { recursive: true });
    const limits = { memory: '2g', cpu_seconds: 600, processes: 40, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };
    const sandbox = new AgentSandbox({
      enabled: true,
      namespaces: 'required',
      limits,
      egressPort: () => 3128,
      apiPort: () => undefined,
      paths,
      extraReadOnly: [path.join(closed, 'tools')],
    });
    await sandbox.start();
    t.teardown(() => sandbox.close());
    const agent = { id: 'agt_reach', name: 'reach', command: '/bin/true', args: [], cwd: path.join(paths.workspaceDir, 'a'), workspace: paths.workspaceDir };
    await t.rejects(sandbox.confine(agent), { code: 'ABX_ERR_CONFLICT', message: new RegExp(`${closed} is not searchable by uid \\d+.*chmod o\\+x`) });
    await t.rejects(sandbox.confine(agent), { code: 'ABX_ERR_CONFLICT' }, 'a failed check is not remembered as passed');
    chmodSync(closed, 0o711);
    const c = await sandbox.confine(agent);
    t.equal(c.command, launcher, 'the launcher wraps bubblewrap');
    t.same(c.args.slice(0, 2), ['--wrap', '--']);
    await c.release();
  },
);

// A box never outlives `agentbox up`, and a programme never outlives supervisord: kill -9 of each
// process of a real box's tree (agentbox up, supervisord, the API, the egress proxy, the seal
// listener, the relay; an operator's [programs] entry runs beside them), and within 2 s nothing of the box is left (or, for a programme, supervisord has
// replaced it and nothing else of the old tree is gone); each next start of the same box succeeds.
// Also: `agentbox boxes` lists the box, `agentbox down` stops it from another shell, `--detach`
// leaves it running, and a taken port stops `agentbox up` with the line that names it.
import t, { type Test } from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { lastLines } from '../helpers/log-tail.js';
import { waitFor } from '../helpers/wait.js';
import { processAlive as alive } from '../../scripts/cli/box-registry.js';
import { BOOT_ONLY_MANIFEST } from '../runtime-contract/support/box-runner.js';

const cli = path.join(repoRoot, 'dist/scripts/cli/agentbox.js');
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-orphans-'));
chmodSync(work, 0o755);
const root = path.join(work, 'box');
const manifest = path.join(work, 'agentbox.toml');
// An operator's programme besides the box's own: it must not outlive supervisord either.
writeFileSync(manifest, `${BOOT_ONLY_MANIFEST}\n[programs.idle]\ncommand = "/bin/sleep"\nargs = ["600"]\n`);

/** A box of this test: its root and manifest. */
interface TestBox {
  root: string;
  manifest: string;
}
const plain: TestBox = { root, manifest };
// A plain user environment (not the test runner's instrumentation), a registry of this test's own,
// and every port chosen free by `agentbox up`.
const env = {
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  HOME: process.env['HOME'] ?? '/root',
  LANG: 'C.UTF-8',
  XDG_RUNTIME_DIR: path.join(work, 'xdg'),
  AGENTBOX_API_PORT: '0',
  AGENTBOX_METRICS_PORT: '0',
  AGENTBOX_EGRESS_PORT: '0',
  AGENTBOX_RELAY_PORT: '0',
};

/** Live processes of the box: those whose command line or environment name its root. */
function boxProcesses(b: TestBox = plain): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(b.root) || readFileSync(`/proc/${pid}/environ`, 'utf8').includes(b.root);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter(alive);
}

/** The live process of the box whose command line contains `marker`. */
function pidOf(marker: string, b: TestBox = plain): number | undefined {
  return boxProcesses(b).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
}

interface Up {
  proc: ChildProcess;
  log: string;
  apiUrl: string;
  exited: Promise<number | null>;
}

/** `agentbox up --local` of the test box, resolved once it printed its ready banner. */
async function up(t: Test, extra: string[] = [], b: TestBox = plain): Promise<Up> {
  const log = path.join(work, `up-${Date.now()}.log`);
  const fd = openSync(log, 'a');
  // Not --quiet: the programmes' own lines go to the log too, so a box that never gets ready says why.
  const proc = spawn(process.execPath, [cli, 'up', '--local', '--manifest', b.manifest, '--root', b.root, ...extra], {
    cwd: work,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const banner = await waitFor(
    'the ready banner',
    () => {
      const text = readFileSync(log, 'utf8');
      if (proc.exitCode !== null && !/press Ctrl-C|running in the background/.test(text)) throw new Error(`agentbox up exited ${proc.exitCode}:\n${text}`);
      return /press Ctrl-C|running in the background/.test(text) ? text : undefined;
    },
    120_000,
  ).catch((err: Error) => {
    // Detached, the programmes write to the box's own log, not to agentbox up's output: both are shown.
    const boxLog = path.join(b.root, 'var/log/agentbox/box.log');
    const programmes = existsSync(boxLog) ? `\nthe box's log, last 80 lines:\n${lastLines(boxLog, 80)}` : '';
    throw new Error(`${err.message}; agentbox up's output (the box's programmes included), last 80 lines:\n${lastLines(log, 80)}${programmes}`);
  });
  const apiUrl = /agentbox: API +(\S+)/.exec(banner)?.[1];
  if (!apiUrl) throw new Error(`no API URL in:\n${banner}`);
  return { proc, log, apiUrl, exited };
}

/** The box's processes, up included, once every programme runs. */
async function tree(u: Up, b: TestBox = plain, markers: string[] = b === plain ? ['/bin/sleep'] : []): Promise<number[]> {
  await waitFor('every programme', () =>
    ['box/management-api.js', 'box/egress-proxy.js', 'box/seal-listener.js', 'supervisord', ...markers].every((m) => pidOf(m, b)),
  );
  return [u.proc.pid!, ...boxProcesses(b)];
}

/** A short-lived command (boxes, down, doctor, a refused up), with the runner's environment so its coverage counts. */
function agentbox(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: work, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function readyStatus(apiUrl: string): Promise<number> {
  try {
    const res = await fetch(`${apiUrl}/ready`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

/** Within 2 s of the kill, no process of `pids` is alive. */
async function allGone(t: Test, pids: number[], what: string, b: TestBox = plain): Promise<void> {
  await waitFor(`${what}: every process of the box to end`, () => pids.every((p) => !alive(p)), 2_000, 25).catch((err: Error) => {
    const left = pids.filter(alive).map((p) => `${p} ${readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ')}`);
    throw new Error(`${err.message}; still alive: ${left.join('; ')}`);
  });
  t.same(boxProcesses(b), [], `${what}: nothing of the box is left`);
}

for (const victim of ['agentbox up', 'supervisord'] as const) {
  t.test(`kill -9 of ${victim}: the whole box ends within 2 s, and starts again`, async (t) => {
    const u = await up(t);
    const pids = await tree(u);
    const target = victim === 'agentbox up' ? u.proc.pid! : pidOf('supervisord')!;
    process.kill(target, 'SIGKILL');
    await allGone(t, pids, victim);
    t.same(JSON.parse(agentbox('boxes', '--json').stdout), [], 'agentbox boxes no longer lists it');
  });
}

for (const [program, marker] of [
  ['management-api', 'box/management-api.js'],
  ['egress-proxy', 'box/egress-proxy.js'],
  ['seal-listener', 'box/seal-listener.js'],
] as const) {
  t.test(`kill -9 of ${program}: supervisord replaces it, the box is ready again, and agentbox down ends it all within 2 s`, async (t) => {
    const u = await up(t);
    const pids = await tree(u);
    const target = pidOf(marker)!;
    process.kill(target, 'SIGKILL');
    const replacement = await waitFor(`a new ${program}`, () => {
      const pid = pidOf(marker);
      return pid && pid !== target ? pid : undefined;
    });
    t.notOk(alive(target), 'the killed process is gone');
    t.same(
      pids.filter((p) => p !== target && !alive(p)),
      [],
      'nothing else of the box ended with it',
    );
    await waitFor('/ready 200 again', async () => (await readyStatus(u.apiUrl)) === 200);
    const down = agentbox('down', '--root', root);
    t.equal(down.code, 0, down.stderr);
    await allGone(t, [...pids, replacement], `agentbox down after ${program}`);
    t.equal(await u.exited, 0, 'agentbox up saw its box stop and exited 0');
  });
}

t.test('agentbox boxes lists the running box with its ports; --detach leaves it running until agentbox down', async (t) => {
  const u = await up(t, ['--detach']);
  t.equal(await u.exited, 0, 'agentbox up --detach returns once ready');
  t.equal(await readyStatus(u.apiUrl), 200, 'the box runs on');
  const listed = JSON.parse(agentbox('boxes', '--json').stdout) as Array<{
    root: string;
    pid: number;
    ready: boolean;
    detached: boolean;
    apiUrl: string;
    ports: Array<{ name: string; port: number }>;
  }>;
  t.equal(listed.length, 1);
  t.match(listed[0], { root, ready: true, detached: true, apiUrl: u.apiUrl });
  t.same(
    listed[0]!.ports.map((p) => p.name),
    ['API', 'metrics', 'egress proxy'],
  );
  t.ok(
    listed[0]!.ports.every((p) => p.port > 0),
    'the ports chosen free are listed',
  );
  const table = agentbox('boxes');
  t.match(table.stdout, new RegExp(`${root}\\s+${listed[0]!.pid} \\(detached\\)\\s+yes`));
  const again = agentbox('up', '--local', '--manifest', manifest, '--root', root);
  t.equal(again.code, 1, 'a second up of the same root is refused');
  t.match(again.stderr, /a box is already running under .*agentbox down --root/);
  const pids = boxProcesses();
  t.equal(agentbox('down', '--root', root).code, 0);
  await allGone(t, pids, 'agentbox down');
  const none = agentbox('down', '--root', root);
  t.equal(none.code, 1);
  t.match(none.stderr, /no box is running under/);
  t.match(agentbox('boxes').stdout, /no box is running/);
});

t.test('a taken port stops agentbox up before anything starts, naming port, programme, key and variable', async (t) => {
  const holder = createServer();
  await new Promise<void>((ok) => holder.listen(0, '127.0.0.1', () => ok()));
  t.teardown(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  const r = spawnSync(process.execPath, [cli, 'up', '--local', '--manifest', manifest, '--root', root], {
    cwd: work,
    env: { ...process.env, ...env, AGENTBOX_EGRESS_PORT: String(port) },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(r.status, 1);
  const lines = r.stderr.trim().split('\n');
  t.equal(lines.length, 1, 'one line');
  t.match(
    lines[0],
    `agentbox up: port ${port} on 127.0.0.1 is already in use: the egress proxy (programme egress-proxy, manifest key sandbox.egress.port, override AGENTBOX_EGRESS_PORT)`,
  );
  t.same(boxProcesses(), [], 'nothing started');
  const doctor = spawnSync(process.execPath, [cli, 'doctor', '--manifest', manifest, '--root', root], {
    cwd: work,
    env: { ...process.env, ...env, AGENTBOX_EGRESS_PORT: String(port) },
    encoding: 'utf8',
  });
  t.equal(doctor.status, 1, 'doctor fails');
  t.match(doctor.stdout, `FAIL  egress proxy port: port ${port} on 127.0.0.1 is already in use`);
});

t.test('with the embedded relay on a port chosen free: kill -9 of the relay is repaired, kill -9 of supervisord ends the relay too', async (t) => {
  const b: TestBox = { root: path.join(work, 'relay-box'), manifest: path.join(work, 'relay.toml') };
  // The relay's port too is chosen free by agentbox up (AGENTBOX_RELAY_PORT=0).
  writeFileSync(b.manifest, `${BOOT_ONLY_MANIFEST}\n[sovereign_mesh]\nenabled = true\npublish_agent_events = true\n\n[sovereign_mesh.relay]\nenabled = true\n`);
  const u = await up(t, [], b);
  const listed = JSON.parse(agentbox('boxes', '--json').stdout) as Array<{ root: string; ports: Array<{ name: string; port: number }> }>;
  const relayPort = listed.find((x) => x.root === b.root)?.ports.find((p) => p.name === 'relay')?.port;
  t.ok(relayPort && relayPort !== 7777, `the relay listens on the port chosen for it (${relayPort})`);
  const pids = await tree(u, b, ['box/relay.js']);
  const relay = pidOf('box/relay.js', b)!;
  process.kill(relay, 'SIGKILL');
  const replacement = await waitFor('a new relay', () => {
    const pid = pidOf('box/relay.js', b);
    return pid && pid !== relay ? pid : undefined;
  });
  await waitFor('/ready 200 again', async () => (await readyStatus(u.apiUrl)) === 200);
  process.kill(pidOf('supervisord', b)!, 'SIGKILL');
  await allGone(t, [...pids.filter((p) => p !== relay), replacement], 'supervisord with the relay', b);
});

/** `agentbox up` of a box whose boot cannot complete: its exit code and output. */
async function failingUp(t: Test, name: string, extra: string, args: string[] = []): Promise<{ code: number | null; out: string; box: TestBox }> {
  const b: TestBox = { root: path.join(work, `${name}-box`), manifest: path.join(work, `${name}.toml`) };
  writeFileSync(b.manifest, `${BOOT_ONLY_MANIFEST}\n${extra}`);
  const log = path.join(work, `${name}.log`);
  const fd = openSync(log, 'a');
  const proc = spawn(process.execPath, [cli, 'up', '--local', '--quiet', '--manifest', b.manifest, '--root', b.root, ...args], {
    cwd: work,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  t.teardown(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  return { code, out: readFileSync(log, 'utf8'), box: b };
}

t.test('a required programme that cannot start stops agentbox up with its reason, and nothing is left', async (t) => {
  // Exits at once every time: supervisord gives up (FATAL) after its start retries, or, when a
  // loaded machine makes it call an exited process RUNNING and start counting again, the seal
  // listener gives up on it after six failed starts in a row.
  const { code, out, box } = await failingUp(t, 'failing', '[programs.crash]\ncommand = "/bin/false"\nrequired_for_readiness = true\n');
  t.equal(code, 1, out);
  t.match(out, /^agentbox: crash could not be started \((FATAL|its last 6 starts each ended within 5 s)\)$/m, 'the reason, on a line of its own');
  t.notMatch(out, /press Ctrl-C/, 'never announced ready');
  t.same(boxProcesses(box), [], 'the box was stopped');
});

t.test('a box that ends before it is ready ends agentbox up, attached or --detach, with its status', async (t) => {
  // A programme of the box's own manifest kills supervisord (its parent) as it starts, before the
  // API could answer /ready. agentbox up must say the box ended and exit: it waited for readiness on
  // whenever no stage had written why the boot failed (one CI run: 120 s, until the test gave up).
  // And every process of the box must end: one still starting when supervisord died took init for
  // its parent and ran on, holding its port (AGENTBOX_SUPERVISORD_PID now names supervisord).
  for (const mode of ['attached', 'detached'] as const) {
    const { code, out, box } = await failingUp(
      t,
      `ends-${mode}`,
      '[programs.killer]\ncommand = "/bin/sh"\nargs = ["-c", "kill -9 $PPID"]\n',
      mode === 'detached' ? ['--detach'] : [],
    );
    t.not(code, 0, `${mode}: exits, not 0: ${out}`);
    t.match(out, /^agentbox: the box exited with status \d+$/m, `${mode}: says the box ended`);
    if (mode === 'detached') t.match(out, /^agentbox: the box did not start; see /m, 'detached: says where its log is');
    t.notMatch(out, /press Ctrl-C|running in the background/, `${mode}: never announced ready`);
    await allGone(t, boxProcesses(box), `${mode}: the box's processes`, box);
  }
});

t.test('a failed stage B stops agentbox up with its reason, and nothing is left', async (t) => {
  // features.gpu = "rocm" on a host without /dev/kfd and /dev/dri: stage B cannot satisfy it.
  const { code, out, box } = await failingUp(
    t,
    'stage-b',
    '[features]\ngpu = "rocm"\n\n[security.exceptions.gpu-rocm]\nreason = "the devices are absent on purpose"\n',
  );
  t.equal(code, 1, out);
  t.match(out, /^agentbox: bootstrap failed: .*features\.gpu = "rocm"/m, "stage B's reason, on a line of its own");
  t.notMatch(out, /press Ctrl-C/, 'never announced ready');
  t.same(boxProcesses(box), [], 'the box was stopped');
});

// The seal listener under a real supervisord: seals when required programmes run, withdraws the
// seal when one stops, re-seals when it returns, records a failed stage B, records a seal timeout
// (and clears it when the programmes come up), and recovers the true state after a kill -9.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const listener = path.join(repoRoot, 'dist/box/seal-listener.js');

interface Box {
  root: string;
  conf: string;
  proc: ChildProcess;
  log: string;
  seal: string;
  failed: string;
}

/** supervisord with a one-shot `bootstrap`, a required `api` and the seal listener. */
function startSupervisord(
  bootstrapCommand: string,
  options: {
    timeoutSec?: number;
    apiAutostart?: boolean;
    supervisorUrl?: string;
    apiCommand?: string | ((root: string) => string);
    apiExitCodes?: string;
  } = {},
): Box {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-seal-'));
  mkdirSync(path.join(root, 'run/agentbox'), { recursive: true });
  const sock = path.join(root, 'run/agentbox/supervisord.sock');
  const log = path.join(root, 'seal.log');
  const conf = path.join(root, 'supervisord.conf');
  writeFileSync(
    conf,
    [
      '[unix_http_server]',
      `file=${sock}`,
      '',
      '[supervisord]',
      'nodaemon=true',
      `pidfile=${root}/run/agentbox/supervisord.pid`,
      'logfile=/dev/null',
      'logfile_maxbytes=0',
      '',
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '',
      '[supervisorctl]',
      `serverurl=unix://${sock}`,
      '',
      '[program:bootstrap]',
      `command=${bootstrapCommand}`,
      'autorestart=false',
      'startsecs=0',
      'startretries=0',
      'priority=10',
      '',
      '[program:api]',
      `command=${typeof options.apiCommand === 'function' ? options.apiCommand(root) : (options.apiCommand ?? '/bin/sleep 1000')}`,
      'startsecs=0',
      'priority=20',
      `autostart=${options.apiAutostart === false ? 'false' : 'true'}`,
      ...(options.apiExitCodes ? [`exitcodes=${options.apiExitCodes}`, 'autorestart=unexpected'] : []),
      '',
      '[eventlistener:seal-listener]',
      `command=${process.execPath} ${listener} --required api --oneshot bootstrap --timeout ${options.timeoutSec ?? 30}`,
      // stderr appended, so the lines of every listener instance stay in one file.
      'events=PROCESS_STATE',
      `environment=AGENTBOX_ROOT="${root}"${options.supervisorUrl ? `,AGENTBOX_SUPERVISOR_URL="${options.supervisorUrl}"` : ''}`,
      `stderr_logfile=${log}`,
      'stderr_logfile_maxbytes=0',
      'priority=1',
      '',
    ].join('\n'),
  );
  const proc = spawn('supervisord', ['-n', '-c', conf], { stdio: 'ignore' });
  return { root, conf, proc, log, seal: path.join(root, 'run/agentbox/bootstrap.done'), failed: path.join(root, 'run/agentbox/bootstrap.failed') };
}

/** `supervisorctl … <args>`; returns stdout. */
function ctl(box: Box, ...args: string[]): string {
  return spawnSync('supervisorctl', ['-c', box.conf, ...args], { encoding: 'utf8' }).stdout;
}

/** The seal listener's pid, once supervisord reports one. */
const listenerPid = (box: Box): Promise<number> => waitFor('a seal listener pid', () => Number(ctl(box, 'pid', 'seal-listener').trim()) || undefined);

/** kill -9 the running listener and wait until supervisord has started another one. */
async function killListener(box: Box): Promise<number> {
  const pid = await listenerPid(box);
  process.kill(pid, 'SIGKILL');
  return waitFor('a new seal listener', async () => {
    const next = await listenerPid(box);
    return next !== pid ? next : undefined;
  });
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

interface SealEvent {
  event: string;
  pid: number;
  'agentbox.stage': string;
  elapsed_ms?: number;
  reason?: string;
  waiting_for?: string[];
  from_snapshot?: boolean;
}

const events = (log: string): SealEvent[] =>
  existsSync(log)
    ? readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as SealEvent)
    : [];

/** The first `name` event written by the listener process `pid`. */
const eventOf = (box: Box, name: string, pid: number) =>
  waitFor(`${name} from listener ${pid}`, () => events(box.log).find((e) => e.event === name && e.pid === pid));

t.test('seal, withdraw on stop, re-seal on start', async (t) => {
  const sv = startSupervisord('/bin/true');
  t.teardown(() => stop(sv.proc));
  const seal = path.join(sv.root, 'run/agentbox/bootstrap.done');
  await waitFor('the seal file', () => existsSync(seal));
  const body = JSON.parse(readFileSync(seal, 'utf8')) as { required: string[]; elapsed_ms: number };
  t.same(body.required, ['api']);
  // The event line follows the file: wait for it rather than race it.
  const completed = await waitFor('BootstrapCompleted', () => events(sv.log).find((e) => e.event === 'BootstrapCompleted'));
  t.equal(completed?.['agentbox.stage'], 'seal');
  t.type(completed?.elapsed_ms, 'number');
  t.ok(events(sv.log).some((e) => e.event === 'BootstrapSealStarted'));

  t.equal(spawnSync('supervisorctl', ['-c', sv.conf, 'stop', 'api']).status, 0);
  await waitFor('the seal to be withdrawn', () => !existsSync(seal));
  await waitFor('RequiredProgramDown', () => events(sv.log).some((e) => e.event === 'RequiredProgramDown'));
  t.equal(spawnSync('supervisorctl', ['-c', sv.conf, 'start', 'api']).status, 0);
  await waitFor('the seal to return', () => existsSync(seal));
  // Events queued before the listener's snapshot are history it already knows: only the stop
  // above withdrew the seal (events are delivered in order, so an earlier one would be logged by now).
  t.same(
    events(sv.log)
      .filter((e) => e.event === 'RequiredProgramDown')
      .map((e) => (e as SealEvent & { state?: string }).state),
    ['STOPPING'],
    'one withdrawal, for the stop',
  );
});

t.test('a required programme supervisord restarts for ever (it dies soon after each start) is given up on, recorded and stopped', async (t) => {
  // startsecs=0: RUNNING at once, then an unexpected exit, restarted at once: supervisord never says FATAL.
  const sv = startSupervisord('/bin/true', { apiCommand: "/bin/sh -c 'sleep 0.2; exit 3'" });
  t.teardown(() => stop(sv.proc));
  // Six starts, each about one turn of supervisord's one-second loop.
  const sixStarts = 60_000;
  const marker = await waitFor(
    'the failure marker naming api',
    () => {
      const m = existsSync(sv.failed) ? (JSON.parse(readFileSync(sv.failed, 'utf8')) as { program?: string; reason?: string }) : undefined;
      return m?.program ? m : undefined;
    },
    sixStarts,
  );
  t.same(marker, { program: 'api', reason: 'api could not be started (its last 6 starts each ended within 5 s)' });
  await waitFor('RequiredProgramFailed', () => events(sv.log).some((e) => e.event === 'RequiredProgramFailed'));
  await waitFor('supervisord to stop it', () => /^api\s+STOPPED/m.test(ctl(sv, 'status', 'api')));
  t.notOk(existsSync(sv.seal), 'no seal is left');
  t.equal(spawnSync('supervisorctl', ['-c', sv.conf, 'start', 'api']).status, 0, 'started again by hand');
  await waitFor('a second give-up after as many failed starts', () => /^api\s+STOPPED/m.test(ctl(sv, 'status', 'api')), sixStarts);
  t.equal(events(sv.log).filter((e) => e.event === 'RequiredProgramFailed').length, 2, 'one RequiredProgramFailed for each give-up');
});

t.test('a failed stage B is recorded and never sealed', async (t) => {
  const sv = startSupervisord('/bin/false');
  t.teardown(() => stop(sv.proc));
  const failed = path.join(sv.root, 'run/agentbox/bootstrap.failed');
  await waitFor('the failure marker', () => existsSync(failed));
  t.match(JSON.parse(readFileSync(failed, 'utf8')), { reason: /bootstrap/ });
  await waitFor('BootstrapFailed', () => events(sv.log).some((e) => e.event === 'BootstrapFailed'));
  t.notOk(existsSync(path.join(sv.root, 'run/agentbox/bootstrap.done')));
});

t.test('the seal timeout comes from the generated environment: missing or malformed is a named error', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-seal-timeout-'));
  const { AGENTBOX_SEAL_TIMEOUT_SEC: _inherited, ...base } = process.env;
  const run = (env: Record<string, string>, flags: string[] = []) => {
    // stdin closed at once: a listener that starts ends as soon as it would read an event.
    const r = spawnSync(process.execPath, [listener, '--required', 'api', ...flags], {
      env: { ...base, AGENTBOX_ROOT: root, ...env },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    });
    const lines = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { event: string; msg: string; timeout_sec?: number });
    return { code: r.status, lines };
  };
  const missing = run({});
  t.equal(missing.code, 2, 'no AGENTBOX_SEAL_TIMEOUT_SEC: exit 2');
  t.match(
    missing.lines.find((l) => l.event === 'BootstrapSealMisconfigured')?.msg,
    /AGENTBOX_SEAL_TIMEOUT_SEC is not set.*bootstrap\.seal_timeout_sec.*agentbox render/,
  );
  for (const bad of ['abc', '0', '-5', '1.5']) {
    const r = run({ AGENTBOX_SEAL_TIMEOUT_SEC: bad });
    t.equal(r.code, 2, `AGENTBOX_SEAL_TIMEOUT_SEC=${bad}: exit 2`);
    t.match(r.lines.find((l) => l.event === 'BootstrapSealMisconfigured')?.msg, `AGENTBOX_SEAL_TIMEOUT_SEC = "${bad}" is not a positive whole number`);
  }
  t.equal(run({}, ['--timeout', 'soon']).code, 2, 'a malformed --timeout: exit 2');
  const good = run({ AGENTBOX_SEAL_TIMEOUT_SEC: '45' });
  t.equal(good.code, 0, 'a valid value: the listener runs until stdin closes');
  t.equal(good.lines.find((l) => l.event === 'BootstrapSealStarted')?.timeout_sec, 45, 'and uses it');
});

t.test('a listener killed with SIGKILL is restarted and recovers the seal from supervisord', async (t) => {
  const sv = startSupervisord('/bin/true');
  t.teardown(() => stop(sv.proc));
  await waitFor('the seal file', () => existsSync(sv.seal));
  const first = JSON.parse(readFileSync(sv.seal, 'utf8')) as { sealed_at: string };

  // bootstrap has EXITED and supervisord replays no states: only its own snapshot can tell.
  const pid = await killListener(sv);
  const recovered = await eventOf(sv, 'BootstrapCompleted', pid);
  t.equal(recovered.from_snapshot, true, 'the new listener sealed from the snapshot');
  t.ok(existsSync(sv.seal), 'the seal is back');
  const second = JSON.parse(readFileSync(sv.seal, 'utf8')) as { sealed_at: string };
  t.ok(second.sealed_at >= first.sealed_at, 'written by the new listener');

  // A state change while no listener runs: the next one must not trust the seal file it finds.
  ctl(sv, 'stop', 'seal-listener');
  ctl(sv, 'stop', 'api');
  t.ok(existsSync(sv.seal), 'nobody withdrew the seal while the listener was stopped');
  ctl(sv, 'start', 'seal-listener');
  const third = await listenerPid(sv);
  await eventOf(sv, 'BootstrapSealStarted', third);
  await waitFor('the stale seal to be withdrawn', () => !existsSync(sv.seal));
  t.match(
    events(sv.log).find((e) => e.event === 'BootstrapSealStarted' && e.pid === third),
    { waiting_for: ['api'] },
  );
  ctl(sv, 'start', 'api');
  await waitFor('the seal to return with the programme', () => existsSync(sv.seal));
});

t.test('a required programme that could not start before the listener looked is reported by the new listener, with its line', async (t) => {
  // As a programme whose port is taken does: one line in run/agentbox/start-failed/<name>, then the
  // start-failure status, which the generated configuration counts as expected (not restarted).
  const line = 'port 1 on 127.0.0.1 is already in use: the api';
  const sv = startSupervisord('/bin/true', {
    apiCommand: (root) => `/bin/sh -c 'mkdir -p ${root}/run/agentbox/start-failed && echo "${line}" > ${root}/run/agentbox/start-failed/api && exit 78'`,
    apiExitCodes: '0,78',
  });
  t.teardown(() => stop(sv.proc));
  await waitFor('api to stay EXITED', () => /EXITED/.test(ctl(sv, 'status', 'api')));
  // A listener that starts after the exit: supervisord replays no state it could act on, only its snapshot tells.
  const pid = await killListener(sv);
  const failed = await eventOf(sv, 'RequiredProgramFailed', pid);
  t.match(failed, { program: 'api', state: 'EXITED', reason: line }, 'down from the snapshot, with the programme and its line');
  t.match(JSON.parse(readFileSync(sv.failed, 'utf8')), { program: 'api', reason: line });
  t.notOk(existsSync(sv.seal), 'never sealed');
});

t.test('a failed stage B stays recorded when the listener is killed and restarted', async (t) => {
  const sv = startSupervisord('/bin/false');
  t.teardown(() => stop(sv.proc));
  await waitFor('the failure marker', () => existsSync(sv.failed));
  const pid = await killListener(sv);
  const failed = await eventOf(sv, 'BootstrapFailed', pid);
  t.match(failed.reason, /bootstrap exited with status 1/);
  t.ok(existsSync(sv.failed), 'the failure marker is still there');
  t.match(JSON.parse(readFileSync(sv.failed, 'utf8')), { reason: /bootstrap/ });
  t.notOk(existsSync(sv.seal), 'never sealed');
});

t.test('a seal timeout is recorded with the programmes still pending, and cleared when they come up', async (t) => {
  // `api` is never started by supervisord: it cannot become RUNNING until someone starts it.
  const sv = startSupervisord('/bin/true', { timeoutSec: 1, apiAutostart: false });
  t.teardown(() => stop(sv.proc));
  await waitFor('the failure marker', () => existsSync(sv.failed));
  const marker = JSON.parse(readFileSync(sv.failed, 'utf8')) as { reason: string; timeout: boolean; waiting_for: string[] };
  t.match(marker, { timeout: true, waiting_for: ['api'] });
  t.match(marker.reason, /seal timed out after 1 s; still waiting for: api/);
  const timeout = await waitFor('BootstrapSealTimeout', () => events(sv.log).find((e) => e.event === 'BootstrapSealTimeout'));
  t.match(timeout, { waiting_for: ['api'] }, 'BootstrapSealTimeout names what is pending');
  t.notOk(existsSync(sv.seal));

  // Still listening: once the programme runs, the box seals and the timeout marker goes.
  ctl(sv, 'start', 'api');
  await waitFor('the seal', () => existsSync(sv.seal));
  await waitFor('the timeout marker to be cleared', () => !existsSync(sv.failed));
  await waitFor('BootstrapCompleted', () => events(sv.log).some((e) => e.event === 'BootstrapCompleted'));

  // A restarted listener keeps the seal and does not time out again.
  const pid = await killListener(sv);
  await eventOf(sv, 'BootstrapCompleted', pid);
  t.notOk(existsSync(sv.failed), 'no failure marker after the restart');
});

t.test('without an answer from supervisord the listener says so and works from events alone', async (t) => {
  const sv = startSupervisord('/bin/true', { supervisorUrl: 'unix:///nonexistent/supervisord.sock' });
  t.teardown(() => stop(sv.proc));
  await waitFor('the seal file', () => existsSync(sv.seal));
  // supervisord copies the listener's stderr into the log: the line may trail the seal file.
  const started = (await waitFor('BootstrapSealStarted in the log', () => events(sv.log).find((e) => e.event === 'BootstrapSealStarted'))) as SealEvent & {
    snapshot_error?: string;
  };
  t.match(started?.snapshot_error, /no supervisord socket at \/nonexistent\/supervisord\.sock/);
});

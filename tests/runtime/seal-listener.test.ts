// The seal listener under a real supervisord: seals when required programmes run, withdraws the
// seal when one stops, re-seals when it returns, and records a failed stage B.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const listener = path.join(repoRoot, 'dist/management-api/src/boot/seal-listener-cli.js');

function startSupervisord(bootstrapCommand: string): { root: string; conf: string; proc: ChildProcess; log: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-seal-'));
  mkdirSync(path.join(root, 'run/agentbox'), { recursive: true });
  const sock = path.join(root, 'run/agentbox/supervisord.sock');
  const log = path.join(root, 'seal.log');
  const conf = path.join(root, 'supervisord.conf');
  writeFileSync(
    conf,
    [
      '[unix_http_server]', `file=${sock}`, '',
      '[supervisord]', 'nodaemon=true', `pidfile=${root}/run/agentbox/supervisord.pid`, 'logfile=/dev/null', 'logfile_maxbytes=0', '',
      '[rpcinterface:supervisor]', 'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface', '',
      '[supervisorctl]', `serverurl=unix://${sock}`, '',
      '[program:bootstrap]', `command=${bootstrapCommand}`, 'autorestart=false', 'startsecs=0', 'priority=10', '',
      '[program:api]', 'command=/bin/sleep 1000', 'startsecs=0', 'priority=20', '',
      '[eventlistener:seal-listener]', `command=${process.execPath} ${listener} --required api --oneshot bootstrap --timeout 30`,
      'events=PROCESS_STATE', `environment=AGENTBOX_ROOT="${root}"`, `stderr_logfile=${log}`, 'priority=1', '',
    ].join('\n'),
  );
  const proc = spawn('supervisord', ['-n', '-c', conf], { stdio: 'ignore' });
  return { root, conf, proc, log };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null) return;
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  proc.kill('SIGTERM');
  await exited;
}

const events = (log: string) =>
  existsSync(log)
    ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; 'agentbox.stage': string; elapsed_ms?: number; reason?: string })
    : [];

t.test('seal, withdraw on stop, re-seal on start', async (t) => {
  const sv = startSupervisord('/bin/true');
  t.teardown(() => stop(sv.proc));
  const seal = path.join(sv.root, 'run/agentbox/bootstrap.done');
  await waitFor('the seal file', () => existsSync(seal));
  const body = JSON.parse(readFileSync(seal, 'utf8')) as { required: string[]; elapsed_ms: number };
  t.same(body.required, ['api']);
  const completed = events(sv.log).find((e) => e.event === 'BootstrapCompleted');
  t.ok(completed, 'BootstrapCompleted emitted');
  t.equal(completed?.['agentbox.stage'], 'seal');
  t.type(completed?.elapsed_ms, 'number');
  t.ok(events(sv.log).some((e) => e.event === 'BootstrapSealStarted'));

  t.equal(spawnSync('supervisorctl', ['-c', sv.conf, 'stop', 'api']).status, 0);
  await waitFor('the seal to be withdrawn', () => !existsSync(seal));
  t.ok(events(sv.log).some((e) => e.event === 'RequiredProgramDown'));
  t.equal(spawnSync('supervisorctl', ['-c', sv.conf, 'start', 'api']).status, 0);
  await waitFor('the seal to return', () => existsSync(seal));
});

t.test('a failed stage B is recorded and never sealed', async (t) => {
  const sv = startSupervisord('/bin/false');
  t.teardown(() => stop(sv.proc));
  const failed = path.join(sv.root, 'run/agentbox/bootstrap.failed');
  await waitFor('the failure marker', () => existsSync(failed));
  t.match(JSON.parse(readFileSync(failed, 'utf8')), { reason: /bootstrap/ });
  t.ok(events(sv.log).some((e) => e.event === 'BootstrapFailed'));
  t.notOk(existsSync(path.join(sv.root, 'run/agentbox/bootstrap.done')));
});

t.test('the seal timeout comes from the generated environment: missing or malformed is a named error', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-seal-timeout-'));
  const { AGENTBOX_SEAL_TIMEOUT_SEC: _inherited, ...base } = process.env;
  const run = (env: Record<string, string>, flags: string[] = []) => {
    // stdin closed at once: a listener that starts ends as soon as it would read an event.
    const r = spawnSync(process.execPath, [listener, '--required', 'api', ...flags], { env: { ...base, AGENTBOX_ROOT: root, ...env }, input: '', encoding: 'utf8', timeout: 30_000 });
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { event: string; msg: string; timeout_sec?: number });
    return { code: r.status, lines };
  };
  const missing = run({});
  t.equal(missing.code, 2, 'no AGENTBOX_SEAL_TIMEOUT_SEC: exit 2');
  t.match(missing.lines.find((l) => l.event === 'BootstrapSealMisconfigured')?.msg, /AGENTBOX_SEAL_TIMEOUT_SEC is not set.*bootstrap\.seal_timeout_sec.*agentbox render/);
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

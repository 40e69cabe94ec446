// /health lists supervised programmes from a real supervisord over its unix socket, and says so when it cannot.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeRoot } from './support/harness.js';
import { killSession } from '../helpers/process-session.js';
import { startTestServer, waitFor } from './support/harness.js';
import { parseProcessInfo, supervisedPrograms } from '../../management-api/src/probes/supervisor-programs.js';

t.test('programmes from supervisord (apt supervisor), then a dead socket reported', async (t) => {
  const sup = await makeRoot();
  t.teardown(sup.cleanup);
  const sock = path.join(sup.paths.runDir, 'supervisord.sock');
  const conf = path.join(sup.dir, 'supervisord.conf');
  await mkdir(sup.paths.logDir, { recursive: true });
  await writeFile(
    conf,
    [
      '[unix_http_server]',
      `file=${sock}`,
      'chmod=0700',
      '[supervisord]',
      'nodaemon=true',
      `logfile=${sup.paths.logDir}/supervisord.log`,
      `pidfile=${sup.paths.runDir}/supervisord.pid`,
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '[program:sleeper]',
      'command=/bin/sleep 300',
      'startsecs=0',
      '[program:one-shot]',
      'command=/bin/true',
      'startsecs=0',
      'autorestart=false',
      '',
    ].join('\n'),
  );
  // Its own session: the test kills supervisord outright, which leaves its programmes running; the
  // teardown ends them too.
  const supervisord = spawn('supervisord', ['-c', conf], { stdio: 'ignore', detached: true });
  const exited = new Promise((resolve) => supervisord.on('exit', resolve));
  t.teardown(() => killSession(supervisord.pid!));
  await waitFor('the supervisord socket', () => existsSync(sock), 10_000);

  const box = await startTestServer({ env: { AGENTBOX_SUPERVISOR_URL: `unix://${sock}` } });
  t.teardown(() => box.close());
  const programs = await waitFor(
    'sleeper RUNNING and one-shot EXITED',
    async () => {
      const h = await box.api('/health', { auth: false });
      const p = h.json['programs'] as { available: boolean; programs: Array<{ name: string; state: string; pid: number }> } | undefined;
      const sleeper = p?.programs.find((x) => x.name === 'sleeper');
      const oneShot = p?.programs.find((x) => x.name === 'one-shot');
      return sleeper?.state === 'RUNNING' && oneShot?.state === 'EXITED' ? p : undefined;
    },
    10_000,
  );
  t.equal(programs.available, true);
  t.ok((programs.programs.find((x) => x.name === 'sleeper')?.pid ?? 0) > 0, 'with its pid');
  const sleeper = programs.programs.find((x) => x.name === 'sleeper') as { startedAt?: number } | undefined;
  t.ok(Math.abs((sleeper?.startedAt ?? 0) - Date.now() / 1000) < 60, 'and when it started (epoch seconds)');
  t.match(
    programs.programs.find((x) => x.name === 'one-shot'),
    { exitStatus: 0 },
    'and how a finished one exited',
  );

  supervisord.kill('SIGKILL');
  await exited;
  t.ok(existsSync(sock), 'a killed supervisord leaves its socket file behind');
  const dead = (await box.api('/health', { auth: false })).json['programs'];
  t.match(dead, { available: false, error: /ECONNREFUSED/ });
});

t.test('no socket, no section; the XML-RPC answer is parsed with entities', async (t) => {
  t.equal(await supervisedPrograms('/nonexistent/supervisord.sock'), undefined);
  const xml =
    '<?xml version="1.0"?><methodResponse><params><param><value><array><data><value><struct><member><name>name</name><value><string>a&amp;b</string></value></member><member><name>group</name><value><string>g</string></value></member><member><name>statename</name><value><string>BACKOFF</string></value></member><member><name>pid</name><value><int>0</int></value></member><member><name>description</name><value><string>Exited too quickly</string></value></member></struct></value></data></array></value></param></params></methodResponse>';
  t.same(parseProcessInfo(xml), [{ name: 'a&b', group: 'g', state: 'BACKOFF', description: 'Exited too quickly', pid: 0, exitStatus: 0, startedAt: 0 }]);
});

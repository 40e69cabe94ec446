// `agentbox status` and `agentbox health`, run as the installed bin against a real running API
// (and, for status, a real supervisord): exit codes, human output and --json.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runAgentboxAsync } from '../../helpers/cli.js';
import { startTestServer, waitFor, type TestServer } from '../../api/support/harness.js';
import { freePort, TcpBackend } from '../../api/support/tcp-backend.js';
import { tcpAdapterModule } from '../../api/support/tcp-adapter.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-cli-box-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
// The commands read AGENTBOX_ROOT and AGENTBOX_API_PORT: run them with neither set.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));
const cli = (...args: string[]) => runAgentboxAsync(args, { cwd: work, env });

/** Seal the box the way the seal listener does, and wait until /ready says so. */
async function seal(box: TestServer): Promise<void> {
  await writeFile(box.paths.sealFile, '{}\n');
  await waitFor('READY', async () => (await box.api('/ready', { auth: false })).status === 200);
}

t.test('status: exit 3 while not ready, 0 once ready; human output and --json', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const url = box.server.apiUrl;
  const target = ['--url', url, '--root', box.paths.root];

  const before = await cli('status', ...target);
  t.equal(before.code, 3, before.stderr);
  t.match(before.stdout, `${url}: NOT READY (bootstrap seal ${box.paths.sealFile} is absent: seal)\n`);
  t.match(before.stdout, 'health: degraded\n');
  t.match(before.stdout, /^ {2}orchestrator +off +off$/m, 'one line per adapter slot');
  t.notMatch(before.stdout, /programmes:/, 'no supervisord, no programme table');

  const json = await cli('status', ...target, '--json');
  t.equal(json.code, 3);
  t.match(JSON.parse(json.stdout), {
    url,
    ready: false,
    readiness: { ready: false, missing: ['seal'] },
    health: { status: 'degraded', slots: { beads: { impl: 'off', state: 'off' } } },
    programs: null,
  });

  await seal(box);
  // The address from the manifest this time (api.port), as on a box started from it.
  const manifest = path.join(work, 'status.toml');
  writeFileSync(manifest, `[api]\nport = ${new URL(url).port}\n`);
  const after = await cli('status', '--manifest', manifest, '--root', box.paths.root);
  t.equal(after.code, 0, after.stderr);
  t.match(after.stdout, `${url}: READY\nhealth: ok\n`);
});

t.test('status lists the programmes of the box supervisord', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const sock = path.join(box.paths.runDir, 'supervisord.sock');
  const conf = path.join(box.paths.configDir, 'supervisord.conf');
  await mkdir(box.paths.configDir, { recursive: true });
  await writeFile(
    conf,
    [
      '[unix_http_server]',
      `file=${sock}`,
      '[supervisord]',
      'nodaemon=true',
      'logfile=/dev/null',
      'logfile_maxbytes=0',
      `pidfile=${box.paths.runDir}/supervisord.pid`,
      '[rpcinterface:supervisor]',
      'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
      '[supervisorctl]',
      `serverurl=unix://${sock}`,
      '[program:worker]',
      'command=/bin/sleep 300',
      'startsecs=0',
      '',
    ].join('\n'),
  );
  const supervisord = spawn('supervisord', ['-c', conf], { stdio: 'ignore' });
  const exited = new Promise((resolve) => supervisord.once('exit', resolve));
  t.teardown(async () => {
    supervisord.kill('SIGTERM');
    await exited;
  });
  await waitFor('the supervisord socket', () => existsSync(sock), 10_000);
  await seal(box);
  const r = await waitFor(
    'worker RUNNING in the status',
    async () => {
      const out = await cli('status', '--url', box.server.apiUrl, '--root', box.paths.root);
      return /^ {2}worker +RUNNING +pid \d+/m.test(out.stdout) ? out : undefined;
    },
    10_000,
  );
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /\nprogrammes:\n {2}worker/);
  const json = JSON.parse((await cli('status', '--url', box.server.apiUrl, '--root', box.paths.root, '--json')).stdout) as { programs: unknown };
  t.match(json.programs, [{ name: 'worker', state: 'RUNNING', detail: /^pid \d+/ }]);
});

t.test('status and health exit 1 when nothing answers', async (t) => {
  const url = `http://127.0.0.1:${await freePort()}`;
  for (const command of ['status', 'health']) {
    const r = await cli(command, '--url', url, '--root', work);
    t.equal(r.code, 1, command);
    t.match(r.stderr, new RegExp(`agentbox ${command}: cannot reach ${url}/.*Is the box running`), command);
  }
});

t.test('health: metrics found through /v1/meta; exit 3 until ready, 0 when ready and every slot healthy', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const target = ['--url', box.server.apiUrl, '--root', box.paths.root];
  const before = await cli('health', ...target);
  t.equal(before.code, 3, before.stderr);
  t.match(before.stdout, new RegExp(`^metrics ${box.server.metricsUrl} \\(\\d+ samples\\)\\nready: no\\n`));
  t.match(before.stdout, /^ {2}beads +healthy$/m, 'an off slot counts as healthy');

  await seal(box);
  const after = await cli('health', ...target);
  t.equal(after.code, 0, after.stderr);
  t.match(after.stdout, 'ready: yes\n');
  t.match(after.stdout, /^build: version=\S+ image_hash=\S+ manifest_sha256=[0-9a-f]{64}$/m);
  const json = await cli('health', ...target, '--json');
  t.equal(json.code, 0);
  const report = JSON.parse(json.stdout) as { samples: number };
  t.match(report, {
    url: box.server.apiUrl,
    metricsUrl: box.server.metricsUrl,
    ready: true,
    slots: { beads: 1, pods: 1, memory: 1, events: 1, orchestrator: 1 },
    build: { manifest_sha256: /^[0-9a-f]{64}$/ },
  });
  t.ok(report.samples > 10, 'the exposition was parsed');

  // Without the box's key (another root): refused, and the fix is named.
  const refused = await cli('health', '--url', box.server.apiUrl, '--root', work);
  t.equal(refused.code, 1);
  t.match(refused.stderr, `the box refused the API key from ${path.join(work, 'var/lib/agentbox/secrets/api-key')}; pass --root`);
});

t.test('health: a degraded slot makes it exit 3 and names the slot', async (t) => {
  const port = await freePort();
  const backend = new TcpBackend(port);
  await backend.start();
  const box = await startTestServer({
    toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "local-ruvector"\nevents = "off"\norchestrator = "off"\n',
    overrides: { memory: tcpAdapterModule('memory', port) },
  });
  t.teardown(async () => {
    await box.close();
    await backend.stop();
  });
  await seal(box);
  await backend.stop();
  const r = await waitFor(
    'memory unhealthy in the summary',
    async () => {
      const out = await cli('health', '--url', box.server.apiUrl, '--root', box.paths.root);
      return /^ {2}memory +unhealthy \(0\)$/m.test(out.stdout) ? out : undefined;
    },
    10_000,
  );
  t.equal(r.code, 3);
  t.match(r.stdout, 'ready: yes\n', 'a non-critical slot does not make the box unready, but health says so');
});

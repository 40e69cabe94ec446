// The compiled server as a process: ports from the environment, SIGTERM/SIGINT close within 10 s with exit 0, failures exit 1 or 2.
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { ALL_OFF, makeRoot } from './support/harness.js';
import { freePort } from './support/tcp-backend.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const serverJs = `${repo}dist/box/management-api.js`;
// The installed `agentbox` command (package.json bin), as users run it.
const cliJs = `${repo}${(JSON.parse(readFileSync(`${repo}package.json`, 'utf8')) as { bin: { agentbox: string } }).bin.agentbox}`;

/** A spawned process with its output collected, and a way to wait for a line or the exit. */
function launch(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<{ code: number | null; signal: string | null; at: number }> } {
  const child = spawn(process.execPath, args, { cwd: repo, env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, out: () => out, err: () => err, exited };
}

async function until<T>(what: string, get: () => T | undefined, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const listening = (out: () => string) => () => {
  const line = out()
    .split('\n')
    .find((l) => l.includes('"event":"ApiListening"'));
  return line ? (JSON.parse(line) as { apiUrl: string; metricsUrl: string; apiPort: number; metricsPort: number; apiKeyFile: string }) : undefined;
};

t.before(() => {
  for (const f of [serverJs, cliJs]) if (!existsSync(f)) throw new Error(`${f} is missing: run \`npm run build\` before the tests`);
});

t.test('SIGTERM closes the server within 10 s, exit 0, even with open keep-alive connections', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await writeFile(`${root.dir}/m.toml`, ALL_OFF);
  const p = launch([serverJs, '--manifest', `${root.dir}/m.toml`], { AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0' });
  t.teardown(() => p.child.kill('SIGKILL'));
  const info = await until('ApiListening', listening(p.out));
  t.match(info, { apiUrl: /^http:\/\/127\.0\.0\.1:\d+$/, metricsUrl: /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, apiKeyFile: `${root.paths.apiKeyFile}` });
  t.not(info.apiPort, 0, 'the bound (ephemeral) port is logged');
  // Keep-alive connections (fetch pools them) must not hold the shutdown up.
  t.equal((await fetch(`${info.apiUrl}/livez`)).status, 200);
  t.equal((await fetch(info.metricsUrl)).status, 200);
  const key = (await readFile(root.paths.apiKeyFile, 'utf8')).trim();
  t.equal((await fetch(`${info.apiUrl}/v1/meta`, { headers: { authorization: `Bearer ${key}` } })).status, 200);
  const sent = Date.now();
  p.child.kill('SIGTERM');
  const { code, signal, at } = await p.exited;
  t.equal(code, 0, 'exit 0');
  t.equal(signal, null);
  t.ok(at - sent < 10_000, `closed in ${at - sent} ms`);
  t.match(p.out(), /"event":"ShutdownStarted","signal":"SIGTERM"/);
  t.match(p.out(), /"event":"ApiStopped"/);
  t.notMatch(p.out(), /ShutdownTimeout/, 'nothing was left open');
  t.notMatch(p.out(), new RegExp(key), 'the key is not logged');
});

t.test('`agentbox api` prints the URLs and the key file, honours the manifest log level, stops on SIGINT', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await writeFile(`${root.dir}/m.toml`, `${ALL_OFF}[observability]\nlog_level = "warn"\n`);
  const p = launch([cliJs, 'api', '--manifest', `${root.dir}/m.toml`], { AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: '0', AGENTBOX_METRICS_PORT: '0' });
  t.teardown(() => p.child.kill('SIGKILL'));
  const info = await until('ApiListening', listening(p.out));
  await until('the printed summary', () => (p.err().includes('API key:') ? true : undefined));
  t.match(p.err(), `agentbox api: listening on ${info.apiUrl}`);
  t.match(p.err(), `metrics:  ${info.metricsUrl}`);
  t.match(p.err(), `API key:  ${root.paths.apiKeyFile}`);
  t.equal((await fetch(`${info.apiUrl}/v1/meta`)).status, 401);
  p.child.kill('SIGINT');
  const { code } = await p.exited;
  t.equal(code, 0);
  const infoLines = p
    .out()
    .split('\n')
    .filter((l) => l.includes('"level":30'));
  t.same(
    infoLines.map((l) => (JSON.parse(l) as { event?: string }).event),
    ['ApiListening'],
    'at warn only the port announcement is logged at info',
  );
});

t.test('an orchestrator that cannot connect: the process exits 1', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await writeFile(`${root.dir}/m.toml`, ALL_OFF);
  const p = launch([`${repo}tests/api/fixtures/fatal-orchestrator.mjs`, `${root.dir}/m.toml`], {
    AGENTBOX_ROOT: root.dir,
    AGENTBOX_API_PORT: '0',
    AGENTBOX_METRICS_PORT: '0',
    TEST_ORCHESTRATOR_PORT: String(await freePort()),
  });
  t.teardown(() => p.child.kill('SIGKILL'));
  const { code, at } = await p.exited;
  t.equal(code, 1, 'exit 1');
  t.match(p.out(), /"event":"AdapterFatal".*critical adapter slot \\"orchestrator\\" failed to connect: connect-failed: .*ECONNREFUSED/);
  t.ok(at > 0, 'and the process ended by itself (nothing left open)');
});

t.test('under supervisord a failed start pauses before exiting, longer each time in a row, and a start that listens resets it', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await writeFile(`${root.dir}/m.toml`, ALL_OFF);
  const failures = `${root.paths.runDir}/api-start-failures.json`;
  const env = {
    AGENTBOX_ROOT: root.dir,
    AGENTBOX_API_PORT: '0',
    AGENTBOX_METRICS_PORT: '0',
    TEST_ORCHESTRATOR_PORT: String(await freePort()),
    SUPERVISOR_ENABLED: '1',
  };
  const failOnce = async (): Promise<{ code: number | null; pausedMs: number; out: string }> => {
    const p = launch([`${repo}tests/api/fixtures/fatal-orchestrator.mjs`, `${root.dir}/m.toml`], env);
    t.teardown(() => p.child.kill('SIGKILL'));
    const { code, at } = await p.exited;
    // From the moment the process logged the pause (its own clock, so a slow pipe cannot shorten it) to its exit.
    const paced = p
      .out()
      .split('\n')
      .find((l) => l.includes('"event":"ApiRestartPaced"'));
    return { code, pausedMs: paced ? at - (JSON.parse(paced) as { time: number }).time : 0, out: p.out() };
  };

  const first = await failOnce();
  t.equal(first.code, 1, 'still exit 1');
  t.match(first.out, /"event":"ApiRestartPaced".*"failures":1,"pauseMs":1000/);
  t.ok(first.pausedMs >= 900, `the first failure pauses about 1 s (${first.pausedMs} ms)`);
  const second = await failOnce();
  t.match(second.out, /"failures":2,"pauseMs":2000/);
  t.ok(second.pausedMs >= 1900, `the second in a row about 2 s (${second.pausedMs} ms)`);
  t.equal((JSON.parse(await readFile(failures, 'utf8')) as { failures: number }).failures, 2, 'the series is kept in the run directory');

  // supervisord stopping the programme during the pause does not wait for it.
  const p = launch([`${repo}tests/api/fixtures/fatal-orchestrator.mjs`, `${root.dir}/m.toml`], env);
  t.teardown(() => p.child.kill('SIGKILL'));
  await until('ApiRestartPaced', () => (p.out().includes('"pauseMs":4000') ? true : undefined));
  const sent = Date.now();
  p.child.kill('SIGTERM');
  const stopped = await p.exited;
  t.equal(stopped.code, 1);
  t.ok(stopped.at - sent < 1_000, `SIGTERM ends the pause (${stopped.at - sent} ms)`);

  const ok = launch([serverJs, '--manifest', `${root.dir}/m.toml`], env);
  t.teardown(() => ok.child.kill('SIGKILL'));
  await until('ApiListening', listening(ok.out));
  t.notOk(existsSync(failures), 'a start that listens ends the series');
  ok.child.kill('SIGTERM');
  t.equal((await ok.exited).code, 0);
});

t.test('start-up failures: invalid manifest exit 1, bad port override exit 2, port in use exit 1', async (t) => {
  const root = await makeRoot();
  t.teardown(root.cleanup);
  await writeFile(`${root.dir}/bad.toml`, '[api]\nport = "x"\n');
  const bad = launch([serverJs, '--manifest', `${root.dir}/bad.toml`], { AGENTBOX_ROOT: root.dir });
  t.equal((await bad.exited).code, 1);
  t.match(bad.err(), /invalid manifest .*bad\.toml:\n.*api\.port/);

  await writeFile(`${root.dir}/m.toml`, ALL_OFF);
  const port = launch([serverJs, '--manifest', `${root.dir}/m.toml`], { AGENTBOX_ROOT: root.dir, AGENTBOX_API_PORT: 'eighty' });
  t.equal((await port.exited).code, 2);
  t.match(port.err(), /AGENTBOX_API_PORT must be a port number 0-65535/);

  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const taken = String((blocker.address() as net.AddressInfo).port);
  const busy = launch([serverJs, '--manifest', `${root.dir}/m.toml`], {
    AGENTBOX_ROOT: root.dir,
    AGENTBOX_API_PORT: taken,
    AGENTBOX_METRICS_PORT: '0',
    AGENTBOX_MANIFEST: 'ignored-when-flag-given',
  });
  t.equal((await busy.exited).code, 1);
  t.match(busy.out(), /"event":"ApiStartFailed".*EADDRINUSE/);

  const viaEnv = launch([serverJs], { AGENTBOX_ROOT: root.dir, AGENTBOX_MANIFEST: `${root.dir}/bad.toml` });
  t.equal((await viaEnv.exited).code, 1, 'AGENTBOX_MANIFEST names the manifest when no flag is given');
});

// Agent profiles on a real box: spawn by profile (env, args, cwd, providers, tty), overrides, per-profile egress through the real proxy programme, timeout and idle ends.
import t from 'tap';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureApiKey } from '../../management-api/src/auth/api-key-file.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { makeRoot, startTestServer, type TestServer } from './support/harness.js';
import { startProxyProgramme as startProxy } from './support/egress-proxy-programme.js';
import { waitFor } from '../helpers/wait.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const probeScript = path.join(repo, 'tests/api/fixtures/profile-agent.mjs');
type Agent = {
  id: string;
  name: string;
  state: string;
  reason?: string;
  profile?: string;
  tty?: boolean;
  durationMs?: number;
  exitCode?: number;
  signal?: string;
};
type Probe = { env: Record<string, string>; args: string[]; cwd: string; tty: boolean };

/** CONNECT through the proxy with an agent's proxy URL; resolves to the status and the refusal reason. */
function connectAs(proxyUrl: string, target: string): Promise<{ status: number; reason?: string }> {
  const u = new URL(proxyUrl);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(u.port), u.hostname);
    let got = '';
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (!got.includes('\r\n\r\n')) return;
      const reason = /x-agentbox-egress: (\S+)/i.exec(got)?.[1];
      resolve({ status: Number(got.split(' ')[1]), ...(reason ? { reason } : {}) });
      s.destroy();
    });
    s.once('error', reject);
    const auth = Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`);
  });
}

t.test('agent profiles', async (t) => {
  const echo = net.createServer((s) => s.on('error', () => undefined).pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  t.teardown(() => echo.close());
  const echoPort = (echo.address() as net.AddressInfo).port;
  const root = await makeRoot();
  const manifestFile = path.join(root.dir, 'agentbox.toml');
  const node = JSON.stringify(process.execPath);
  const toml = `[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"
[sandbox.egress]\nallow_domains = ["localhost"]\nallow_ports = [${echoPort}]
[providers.anthropic]\nenv_var = "ANTHROPIC_API_KEY"\nbase_url = "http://127.0.0.1:9"
[providers.openai]\nenv_var = "OPENAI_API_KEY"\nbase_url = "http://127.0.0.1:9"
[agents.profiles.probe]\ncommand = ${node}\nargs = ["profile-agent.mjs", "from-profile"]\nenv = { PROBE_MODE = "profile" }\ncwd = "probe"\nproviders = ["anthropic"]\negress = { allow_domains = ["127.0.0.1"] }\nlimits = { processes = 64 }
[agents.profiles.probe-tty]\ncommand = ${node}\nargs = ["profile-agent.mjs"]\ntty = true
[agents.profiles.sleeper]\ncommand = "/bin/sh"\nargs = ["-c", "sleep 600"]\ntimeout_sec = 1
[agents.profiles.quiet]\ncommand = "/bin/sh"\nargs = ["-c", "sleep 600"]\nidle_timeout_sec = 1
[agents.profiles.chatty]\ncommand = "/bin/sh"\nargs = ["-c", "while :; do echo tick; sleep 0.2; done"]\nidle_timeout_sec = 2
`;
  writeFileSync(manifestFile, toml);
  await ensureApiKey(root.paths.apiKeyFile, createLogger({ level: 'silent' }));
  const proxy = await startProxy(root.dir, manifestFile);
  t.teardown(() => void proxy.proc.kill());
  const server: TestServer = await startTestServer({
    toml,
    root,
    egress: { socketPath: root.paths.egressControlSocket, timing: { retryMinMs: 20, retryMaxMs: 100 } },
  });
  t.teardown(() => server.close());
  await waitFor('the control channel', () => server.server.app.agentbox.egress!.status().reachable);
  // In each agent's own directory: agents read only their own.
  for (const dir of ['probe', 'probe-tty', 'other', 'probe2']) {
    mkdirSync(path.join(server.paths.workspaceDir, dir), { recursive: true });
    copyFileSync(probeScript, path.join(server.paths.workspaceDir, dir, 'profile-agent.mjs'));
  }
  const agent = async (id: string): Promise<Agent> => (await server.api(`/v1/agents/${id}`)).json['agent'] as Agent;
  const probeOf = async (id: string): Promise<Probe> => {
    const line = await waitFor(`agent ${id}'s report`, async () => {
      const chunks = (await server.api(`/v1/agents/${id}/output`)).json['chunks'] as Array<{ text: string }>;
      return /\{"env".*\}/.exec(chunks.map((c) => c.text).join(''))?.[0];
    });
    return JSON.parse(line) as Probe;
  };
  const spawn = async (body: Record<string, unknown>) => server.api('/v1/agents', { body });

  const started = await spawn({ profile: 'probe' });
  t.equal(started.status, 201, JSON.stringify(started.json));
  const probe = started.json['agent'] as Agent;
  const report = await probeOf(probe.id);

  await t.test('a profile starts with its command, args, env, cwd and providers', async (t) => {
    t.equal(probe.name, 'probe', 'the name defaults to the profile');
    t.equal(probe.profile, 'probe', 'the record names its profile');
    t.same(report.args, ['from-profile']);
    t.equal(report.env['PROBE_MODE'], 'profile');
    t.equal(path.basename(report.cwd), 'probe');
    t.match(report.env['ANTHROPIC_BASE_URL'], /\/v1\/providers\/anthropic$/, "the profile's provider is announced");
    t.equal(report.env['OPENAI_BASE_URL'], undefined, 'a provider the profile does not name is not');
    t.equal(report.env['ANTHROPIC_API_KEY'], report.env['AGENTBOX_TOKEN'], "its key variable holds the agent's token");
    t.equal(report.env['OPENAI_API_KEY'], undefined, 'nor its key variable');
    t.equal(report.tty, false);
  });

  await t.test('the broker refuses the agent a provider its profile does not name', async (t) => {
    const call = (name: string) =>
      fetch(`${report.env['AGENTBOX_API_URL']}/v1/providers/${name}/v1/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${report.env['AGENTBOX_TOKEN']}`, 'content-type': 'application/json' },
        body: '{}',
      });
    const refused = await call('openai');
    t.equal(refused.status, 403);
    t.match(await refused.json(), { error: 'ABX_ERR_AGENT_SCOPE' });
    const allowed = await call('anthropic');
    t.not(((await allowed.json().catch(() => ({}))) as { error?: string }).error, 'ABX_ERR_AGENT_SCOPE', 'its own provider is not refused by scope');
  });

  await t.test("the profile's egress entries admit its agents alone, through the real proxy", async (t) => {
    t.match(await connectAs(report.env['HTTPS_PROXY']!, `127.0.0.1:${echoPort}`), { status: 200 }, "the profile's entry admits its agent");
    t.match(await connectAs(report.env['HTTPS_PROXY']!, `127.0.0.1:1`), { status: 403, reason: 'port-not-listed' }, 'with the box ports only');
    const other = await spawn({ name: 'other', command: process.execPath, args: ['profile-agent.mjs'] });
    t.equal(other.status, 201, JSON.stringify(other.json));
    const otherId = (other.json['agent'] as Agent).id;
    const otherReport = await probeOf(otherId);
    t.match(
      await connectAs(otherReport.env['HTTPS_PROXY']!, `127.0.0.1:${echoPort}`),
      { status: 403, reason: 'domain-not-listed' },
      'another agent is refused',
    );
    t.match(await connectAs(otherReport.env['HTTPS_PROXY']!, `localhost:${echoPort}`), { status: 200 }, "the box's list still applies to it");
    t.ok(otherReport.env['OPENAI_BASE_URL'] && otherReport.env['ANTHROPIC_BASE_URL'], 'an ad-hoc agent is announced every provider, as before');
    await server.api(`/v1/agents/${otherId}?graceMs=0`, { method: 'DELETE' });
  });

  await t.test('what a request may override, and what not', async (t) => {
    for (const [body, what] of [
      [{ profile: 'probe', command: '/bin/sh' }, /command comes from profile probe/],
      [{ profile: 'probe', tty: true }, /tty comes from profile probe/],
      [{ profile: 'probe', name: 'p3', cwd: 'p3', limits: { processes: 100 } }, /limits.processes = 100 is above profile probe's 64/],
      [{ profile: 'probe', name: 'p3', cwd: 'p3', env: { PROBE_MODE: 'mine' } }, /env.PROBE_MODE is set by profile probe/],
      [{ profile: 'sleeper', name: 's2', timeout_sec: 5 }, /timeout_sec = 5 is above profile sleeper's 1/],
      [{ profile: 'nope' }, /profile "nope" is not under \[agents.profiles\]/],
      [{ args: ['x'] }, /names the agent and its command/],
    ] as const) {
      const r = await spawn(body);
      t.equal(r.status, 400, JSON.stringify(body));
      t.match(r.json, { error: 'ABX_ERR_VALIDATION', message: what });
    }
    const r = await spawn({
      profile: 'probe',
      name: 'probe2',
      cwd: 'probe2',
      args: ['profile-agent.mjs', 'mine'],
      env: { EXTRA: 'added' },
      limits: { processes: 32 },
    });
    t.equal(r.status, 201, JSON.stringify(r.json));
    const id = (r.json['agent'] as Agent).id;
    const mine = await probeOf(id);
    t.same(mine.args, ['mine'], 'args replaced');
    t.equal(mine.env['EXTRA'], 'added', 'a variable added');
    t.equal(mine.env['PROBE_MODE'], 'profile', "the profile's kept");
    t.equal(path.basename(mine.cwd), 'probe2');
    t.match((await agent(id)) as unknown as Record<string, unknown>, { limits: { processes: 32 } }, 'a lower limit taken');
    await server.api(`/v1/agents/${id}?graceMs=0`, { method: 'DELETE' });
  });

  await t.test('tty comes from the profile', async (t) => {
    const r = await spawn({ profile: 'probe-tty', cols: 100, rows: 30 });
    t.equal(r.status, 201, JSON.stringify(r.json));
    const a = r.json['agent'] as Agent;
    t.equal(a.tty, true);
    t.equal((await probeOf(a.id)).tty, true, 'its stdout is a terminal');
    await server.api(`/v1/agents/${a.id}?graceMs=0`, { method: 'DELETE' });
  });

  await t.test('timeout_sec and idle_timeout_sec end an agent with their reason', async (t) => {
    const ids: Record<string, string> = {};
    for (const p of ['sleeper', 'quiet', 'chatty']) {
      const r = await spawn({ profile: p });
      t.equal(r.status, 201, JSON.stringify(r.json));
      ids[p] = (r.json['agent'] as Agent).id;
    }
    // Timeouts are asserted by the state they end in, never by how soon: a loaded machine may be late.
    const timedOut = await waitFor(
      'the sleeper to time out',
      async () => ((a) => (a.state !== 'running' ? a : undefined))(await agent(ids['sleeper']!)),
      60_000,
    );
    t.match(timedOut, { state: 'terminated', reason: 'timeout', signal: 'SIGTERM' });
    t.ok(timedOut.durationMs! >= 1000, `duration ${timedOut.durationMs} ms`);
    const idle = await waitFor('the quiet one to idle out', async () => ((a) => (a.state !== 'running' ? a : undefined))(await agent(ids['quiet']!)), 60_000);
    t.match(idle, { state: 'terminated', reason: 'idle' });
    // The chatty one prints every 0.2 s: over three times its idle period (and past both ends above) it still runs.
    const since = Date.now();
    await waitFor('three idle periods', () => Date.now() - since >= 6_000, 20_000, 200);
    t.equal((await agent(ids['chatty']!)).state, 'running', 'an agent that keeps printing is not idle');
    await server.api(`/v1/agents/${ids['chatty']}?graceMs=0`, { method: 'DELETE' });
    // Recorded as the agents end; appended to the log a moment later.
    const recorded = (kind: string, id: string) =>
      waitFor(
        `${kind} of ${id}`,
        async () =>
          ((await server.api(`/v1/events?kind=${kind}&limit=500`)).json['items'] as Array<{ data: Record<string, unknown> }>).find(
            (e) => e.data['agent'] === id,
          )?.data,
      );
    t.match(await recorded('agent.exit', ids['sleeper']!), { reason: 'timeout', state: 'terminated', signal: 'SIGTERM' }, 'agent.exit carries the reason');
    t.match(await recorded('agent.exit', ids['quiet']!), { reason: 'idle', state: 'terminated' });
    t.match(await recorded('agent.terminate', ids['sleeper']!), { by: { kind: 'box', reason: 'timeout' } }, 'agent.terminate names the box and the reason');
  });

  await server.api(`/v1/agents/${probe.id}?graceMs=0`, { method: 'DELETE' });
});

// End to end, as a new user: `npm start` brings the embedded default box to /ready 200, and the
// flows of docs/user/api.md work against it — a bead created and claimed, memory stored and
// searched, an event appended and streamed, an agent spawned and its output read. SIGTERM then
// stops everything and leaves no process behind.
import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, openSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, waitForStatus } from '../runtime-contract/support/box-runner.js';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/** Pids of live processes whose command line or environment mention `marker`. */
function processesMentioning(marker: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) || readFileSync(`/proc/${pid}/environ`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The fields of the API's answers the test reads. */
type BeadAnswer = { bead: { id: string; status: string } };
type AgentAnswer = { agent: { id: string; state: string } };

t.test('npm start: ready, the api.md flows, clean stop', { timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-'));
  // As root, agents run as an unprivileged uid: it must be able to reach its directory under the box's root.
  chmodSync(work, 0o755);
  const root = path.join(work, 'box');
  const [apiPort, metricsPort] = [await freePort(), await freePort()];
  const logFile = path.join(work, 'npm-start.log');
  const log = openSync(logFile, 'a');
  // Through `env -i`, so the box runs with a user's plain environment and not with the test
  // runner's instrumentation, which it injects into the environment of every process it spawns.
  const userEnv = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/root',
    LANG: 'C.UTF-8',
    AGENTBOX_API_PORT: String(apiPort),
    AGENTBOX_METRICS_PORT: String(metricsPort),
    AGENTBOX_EGRESS_PORT: '0',
  };
  const npm = spawn('env', ['-i', ...Object.entries(userEnv).map(([k, v]) => `${k}=${v}`), 'npm', 'start', '--', '--root', root], {
    cwd: repoRoot,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
  t.teardown(() => {
    if (npm.exitCode === null) npm.kill('SIGKILL');
  });
  const API = `http://127.0.0.1:${apiPort}`;
  await waitForStatus(`${API}/ready`, 200, 300_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${readFileSync(logFile, 'utf8').slice(-4000)}`);
  });
  const out = await waitFor('the start-up summary', () => {
    const text = readFileSync(logFile, 'utf8');
    return /agentbox: press Ctrl-C/.test(text) ? text : undefined;
  });
  t.ok(out.includes(`agentbox: API      ${API}`), 'prints the API URL');
  t.ok(out.includes(`agentbox: dashboard ${API}/ui/`), 'prints the dashboard URL');
  t.match(out, new RegExp(`metrics\\s+http://127.0.0.1:${metricsPort}/metrics`), 'prints the metrics URL');
  t.match(out, /API key\s+\S*secrets\/api-key/, 'prints the API key file');

  const key = readFileSync(path.join(root, 'var/lib/agentbox/secrets/api-key'), 'utf8').trim();
  const call = async <T = Record<string, unknown>>(method: string, url: string, body?: unknown) => {
    const res = await fetch(API + url, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  // Beads: an epic, a child, a claim that wins, a second claimant that loses, a close.
  const epic = await call<BeadAnswer>('POST', '/v1/beads', { kind: 'epic', title: 'release 1.0' });
  t.equal(epic.status, 201);
  const build = await call<BeadAnswer>('POST', '/v1/beads', { title: 'build', parentId: epic.body.bead.id });
  const buildId = build.body.bead.id as string;
  const ready = await call('GET', '/v1/beads/ready');
  t.ok(
    (ready.body.items as Array<{ id: string }>).some((b) => b.id === buildId),
    'the new bead is in the ready queue',
  );
  const claim = await call('POST', `/v1/beads/${buildId}/claim`, { claimant: 'agent-1' });
  t.equal(claim.status, 200);
  t.equal((await call('POST', `/v1/beads/${buildId}/claim`, { claimant: 'agent-2' })).status, 409, 'a second claimant loses');
  const closed = await call<BeadAnswer>('POST', `/v1/beads/${buildId}/close`, { outcome: 'success', note: 'done' });
  t.equal(closed.body.bead.status, 'closed');

  // Memory: store as text, search by text.
  t.equal((await call('POST', '/v1/memory/notes', { id: 'keys', text: 'rotate the signing keys every month' })).status, 201);
  await call('POST', '/v1/memory/notes', { text: 'the staging database is reset on Mondays' });
  const hits = await call<{ hits: Array<{ id: string }> }>('POST', '/v1/memory/notes/search', { text: 'when do we rotate signing keys?', k: 1 });
  t.equal(hits.body.hits[0]?.id, 'keys', 'the closest memory comes first');

  // Events: stream live while appending.
  const controller = new AbortController();
  const stream = await fetch(`${API}/v1/events/stream?kind=agent.note`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  t.equal(stream.status, 200);
  const appended = await call<{ event: { id: string } }>('POST', '/v1/events', { kind: 'agent.note', source: 'agent-1', data: { text: 'tests are green' } });
  t.equal(appended.status, 201);
  const reader = stream.body!.getReader();
  let seen = '';
  await waitFor(
    'the event on the stream',
    async () => {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value);
      return seen.includes(appended.body.event.id as string);
    },
    10_000,
    0,
  );
  controller.abort();

  // Agents: spawn in the workspace and read what it printed.
  mkdirSync(path.join(root, 'workspace/repo'), { recursive: true });
  const agent = await call<AgentAnswer>('POST', '/v1/agents', { name: 'builder', command: '/bin/sh', args: ['-c', 'echo building; echo done'], cwd: 'repo' });
  t.equal(agent.status, 201, JSON.stringify(agent.body));
  const agentId = agent.body.agent.id as string;
  await waitFor('the agent to exit', async () => (await call<AgentAnswer>('GET', `/v1/agents/${agentId}`)).body.agent.state === 'exited', 15_000);
  const output = await call('GET', `/v1/agents/${agentId}/output`);
  t.match((output.body.chunks as Array<{ text: string }>).map((c) => c.text).join(''), /building\ndone\n/);

  // Stop: npm forwards SIGTERM; everything stops and nothing is left running.
  npm.kill('SIGTERM');
  t.equal(await exited, 0, 'npm start exits 0 after SIGTERM');
  await waitFor('no process of the box left', () => processesMentioning(root).length === 0, 10_000);
  t.same(processesMentioning(root), [], 'no orphan process');
});

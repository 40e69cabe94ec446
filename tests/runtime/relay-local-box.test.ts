// The embedded relay in a box started with `agentbox up --local`: supervisord runs it as the
// required programme `relay`, the seal (and so /ready) waits for it, the box publishes its own
// agent events to it (no `relays` listed), strangers are refused, and after `kill -9` supervisord
// restarts it with its events intact and the box publishing to it again.
import t from 'tap';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Event } from 'nostr-tools/pure';
import { Relay } from 'nostr-tools/relay';
import { freePort, waitForStatus } from '../runtime-contract/support/box-runner.js';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { author, publish, signed } from './support/relay-process.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { AGENT_EVENT_KIND } from '../../management-api/src/mesh/agent-event.js';

interface Health {
  programs?: { available: boolean; programs?: Array<{ name: string; state: string; pid: number }> };
  relays?: { configured: string[]; reachable: string[] };
}

t.test('up --local: the relay under supervisord, required for readiness, fed by the box', { timeout: 180_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-relay-up-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const root = path.join(work, 'box');
  const [apiPort, metricsPort, relayPort] = [await freePort(), await freePort(), await freePort()];
  const relayUrl = `ws://127.0.0.1:${relayPort}`;
  const manifestFile = path.join(work, 'agentbox.toml');
  writeFileSync(
    manifestFile,
    `[adapters]\nbeads = "local-sqlite"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "off"\ncritical = []\n\n` +
      `[sovereign_mesh]\nenabled = true\npublish_agent_events = true\n\n[sovereign_mesh.relay]\nenabled = true\nport = ${relayPort}\nallowed_kinds = [${AGENT_EVENT_KIND}]\n`,
  );
  mkdirSync(root, { recursive: true });
  const logFile = path.join(work, 'up.log');
  const log = openSync(logFile, 'a');
  const env = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/tmp',
    AGENTBOX_API_PORT: String(apiPort),
    AGENTBOX_METRICS_PORT: String(metricsPort),
    AGENTBOX_EGRESS_PORT: '0',
  };
  const up = spawn(process.execPath, [path.join(repoRoot, 'dist/scripts/cli/agentbox.js'), 'up', '--local', '--manifest', manifestFile, '--root', root], {
    env,
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  const exited = new Promise<number | null>((resolve) => up.once('exit', (code) => resolve(code)));
  t.teardown(async () => {
    if (up.exitCode === null) up.kill('SIGTERM');
    await exited;
  });
  const output = (): string => readFileSync(logFile, 'utf8');
  const api = `http://127.0.0.1:${apiPort}`;
  await waitForStatus(`${api}/ready`, 200, 120_000).catch((err: Error) => {
    throw new Error(`${err.message}\n${output().slice(-4000)}`);
  });
  const paths = runtimePaths({ AGENTBOX_ROOT: root });
  const key = readFileSync(paths.apiKeyFile, 'utf8').trim();
  const health = async (): Promise<Health> => (await (await fetch(`${api}/health`, { headers: { authorization: `Bearer ${key}` } })).json()) as Health;
  const relayProgramme = async () => (await health()).programs?.programs?.find((p) => p.name === 'relay');

  t.match(await relayProgramme(), { state: 'RUNNING' }, 'supervisord runs the relay programme');
  t.match(readFileSync(paths.supervisordConf, 'utf8'), /AGENTBOX_SEAL_PROGRAMS="egress-proxy,management-api,relay"/, 'the seal waits for it');
  t.same((await health()).relays, { configured: [relayUrl], reachable: [relayUrl] }, 'the box publishes to its embedded relay, unlisted in relays');

  // Watch the relay as any client would, then make the box publish: a bead created through the API.
  const reader = await Relay.connect(relayUrl);
  const seen: Event[] = [];
  reader.subscribe([{ kinds: [AGENT_EVENT_KIND] }], { onevent: (e) => void seen.push(e) });
  const created = await fetch(`${api}/v1/beads`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ title: 'relay check' }),
  });
  t.equal(created.status, 201);
  const { bead } = (await created.json()) as { bead: { id: string } };
  const opened = await waitFor('the bead.open event on the embedded relay', () =>
    seen.find((e) => e.tags.some((tag) => tag[0] === 'bead' && tag[1] === bead.id)),
  );
  reader.close();
  const stranger = await publish(relayUrl, signed(author(), AGENT_EVENT_KIND));
  t.match(stranger, { ok: false, message: /^blocked: ingress_policy "allowlist"/ }, 'a stranger is refused by the default allowlist');

  // kill -9: supervisord restarts it; the stored event is still there and the box reconnects.
  const before = await relayProgramme();
  process.kill(before!.pid, 'SIGKILL');
  await waitFor(
    'the relay restarted by supervisord',
    async () => {
      const now = await relayProgramme();
      return now && now.state === 'RUNNING' && now.pid !== before!.pid;
    },
    30_000,
  );
  await waitForStatus(`${api}/ready`, 200, 30_000);
  await waitFor('the box connected to the restarted relay', async () => (await health()).relays?.reachable.includes(relayUrl));
  const again = await Relay.connect(relayUrl);
  const stored = await new Promise<Event[]>((resolve) => {
    const events: Event[] = [];
    const sub = again.subscribe([{ ids: [opened.id] }], {
      onevent: (e) => void events.push(e),
      oneose: () => {
        sub.close();
        resolve(events);
      },
    });
  });
  again.close();
  t.same(
    stored.map((e) => e.id),
    [opened.id],
    'the event survived the restart (SQLite on the state volume)',
  );
  t.match(output(), /"event":"RequiredProgramDown","program":"relay"/, 'the seal was withdrawn while the relay was down');

  up.kill('SIGTERM');
  t.equal(await exited, 0, 'the box stops cleanly');
});

// A mesh client box talks to its host and to nothing else: the whole process tree of a client box
// runs under strace while it registers with a real host (a host-mode API in this process),
// heartbeats and deregisters on SIGTERM; every connect/send it made goes to a unix socket, its own
// API port or the host's port on loopback — no DNS, no other address.
import t from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { startBox, waitForStatus } from '../runtime-contract/support/box-runner.js';
import { runAgentboxAsync } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { ALL_OFF, startTestServer } from '../api/support/harness.js';
import { networkCalls, stopTraced, straceWrap } from './support/net-trace.js';

t.test('a client box calls nothing but its host and its own sockets', { timeout: 180_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-client-net-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  // The client's key, imported into its root as an operator would, so the host can list it first.
  const secret = generateSecretKey();
  const pubkey = getPublicKey(secret);
  const keyFile = path.join(work, 'client.key');
  writeFileSync(keyFile, Buffer.from(secret).toString('hex'), { mode: 0o600 });
  const host = await startTestServer({ toml: `${ALL_OFF}critical = []\n[mesh]\nmode = "host"\nheartbeat_interval_sec = 5\nallowed_pubkeys = ["${pubkey}"]\n` });
  t.teardown(() => host.close());
  const hostPort = Number(new URL(host.server.apiUrl).port);

  const traceFile = path.join(work, 'trace.txt');
  const box = await startBox({
    manifest: `${ALL_OFF}critical = []\n\n[mesh]\nmode = "client"\nhost_url = "${host.server.apiUrl}"\n`,
    wrapWith: straceWrap(traceFile),
    prepare: async (root) => {
      const r = await runAgentboxAsync(['identity', '--root', root, '--import', keyFile]);
      if (r.code !== 0) throw new Error(`agentbox identity --import failed: ${r.stderr}`);
    },
  });
  t.teardown(async () => {
    if (box.proc.exitCode === null && box.proc.signalCode === null) await stopTraced(box).catch(() => box.proc.kill('SIGKILL'));
  });
  await waitForStatus(`${box.apiUrl}/ready`, 200, 120_000);
  const member = async () => ((await host.api('/v1/mesh/members')).json['members'] as Array<Record<string, unknown>>).find((m) => m['pubkey'] === pubkey);
  // Registered, then one heartbeat (health is set by the first one).
  await waitFor('the client registered and heartbeating', async () => (await member())?.['health'], 30_000, 100);
  await stopTraced(box);
  t.notOk(await member(), 'it deregistered when it stopped');

  const apiPort = Number(new URL(box.apiUrl).port);
  const calls = networkCalls(readFileSync(traceFile, 'utf8'));
  t.ok(
    calls.some((c) => c.family === 'AF_UNIX'),
    'the trace covers the box (its own unix-socket connections are in it)',
  );
  const loopback = (c: { host?: string }): boolean => !!c.host && /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/.test(c.host);
  t.ok(
    calls.some((c) => loopback(c) && c.port === hostPort),
    'the trace shows the calls to the host',
  );
  const outward = calls.filter((c) => c.family !== 'AF_UNIX' && !(loopback(c) && (c.port === apiPort || c.port === hostPort)));
  t.same(
    outward.map((c) => c.line),
    [],
    'no connect or send to any address but the box itself and its host (no DNS, no other host)',
  );
});

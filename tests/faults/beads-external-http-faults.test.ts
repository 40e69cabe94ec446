// beads/external-http when its backend box is down at start or dies mid-run: degraded with a clear
// reason, recovering by itself when the box returns, and nothing acknowledged lost.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { clientManifest, startBeadsBox } from '../contract/beads-remote-box.js';
import { startSlot } from '../contract/pods-harness.js';
import { freePort } from '../helpers/free-port.js';

const FAST = { connectTimeoutMs: 2_000, healthIntervalMs: 50, healthTimeoutMs: 1_000, reconnectInitialMs: 30, reconnectMaxMs: 150 };
// No periodic probe: the operation must be the first to meet the outage, or the probe may degrade the
// slot while the box is stopping and the operation would be refused as degraded instead.
const OPS_ONLY = { ...FAST, healthIntervalMs: 600_000 };

/** A port nothing listens on (bound once, then released). */
t.test('backend down at start: the slot starts degraded and recovers when the box comes up', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-beads-late-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const port = await freePort();
  // The client needs the box's key before the box exists: create the box once to mint it, then stop it.
  const minted = await startBeadsBox({ root, port });
  await minted.stop();
  const h = await startSlot('beads', clientManifest(`http://127.0.0.1:${port}`, { file: minted.keyFile }), { timing: FAST });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  await t.rejects(h.ops.create({ title: 'too early' }), { code: 'ABX_ERR_ADAPTER_DEGRADED' });

  const box = await startBeadsBox({ root, port });
  t.teardown(() => box.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 5_000);
  t.match(await h.ops.create({ title: 'now it works' }), { status: 'open' });
});

t.test('backend dies mid-run: a clear error, the slot degrades, recovers, and acknowledged beads are intact', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-beads-dies-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const box = await startBeadsBox({ root });
  const h = await startSlot('beads', clientManifest(box.url, { file: box.keyFile }), { timing: OPS_ONLY });
  t.teardown(() => h.close());
  const acked = [];
  for (let i = 0; i < 10; i++) acked.push(await h.ops.create({ title: `before the crash ${i}` }));
  await h.ops.claim(acked[0]!.id, 'agent-1');

  await box.stop();
  await t.rejects(h.ops.create({ title: 'during the outage' }), {
    code: 'ABX_ERR_ADAPTER_UNAVAILABLE',
    message: /beads.*cannot reach http:\/\/127\.0\.0\.1:\d+/,
  });
  t.equal(h.state(), 'degraded', 'one backend failure degrades the slot at once');
  await t.rejects(h.ops.list({}), { code: 'ABX_ERR_ADAPTER_DEGRADED', message: /reconnecting/ });

  const again = await startBeadsBox({ root, port: box.port });
  t.teardown(() => again.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 5_000);
  for (const b of acked) t.equal((await h.ops.get(b.id)).title, b.title, `${b.title} survived`);
  t.equal((await h.ops.claim(acked[0]!.id, 'agent-1')).claimed, true, 'the claim survived too');
  await t.rejects(h.ops.claim(acked[0]!.id, 'agent-2'), { code: 'ABX_ERR_CONFLICT' });
});

t.test('backend dies while nothing is asked of it: the health probe degrades the slot, and it recovers', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-beads-idle-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const box = await startBeadsBox({ root });
  const h = await startSlot('beads', clientManifest(box.url, { file: box.keyFile }), { timing: FAST });
  t.teardown(() => h.close());
  const kept = await h.ops.create({ title: 'before the outage' });
  await box.stop();
  await waitFor('the probe to degrade the slot', () => h.state() === 'degraded', 5_000);
  t.match(h.reason(), /127\.0\.0\.1:\d+/, 'the reason names the backend');
  await t.rejects(h.ops.get(kept.id), { code: 'ABX_ERR_ADAPTER_DEGRADED' });

  const again = await startBeadsBox({ root, port: box.port });
  t.teardown(() => again.stop());
  await waitFor('the slot to recover', () => h.state() === 'healthy', 5_000);
  t.equal((await h.ops.get(kept.id)).title, 'before the outage');
});

// Faults of pods/external-solid: server down at start, server dying mid-run, and recovery without losing acknowledged writes.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MESH_CLIENT, onlySlot, startSlot } from '../contract/pods-harness.js';
import { freePort, startSolidServer, type SolidServer } from '../contract/pods-solid-server.js';
import { waitFor } from '../helpers/wait.js';

// No periodic probe during the test: the failing call itself must be what degrades the slot.
const timing = { reconnectInitialMs: 200, reconnectMaxMs: 1000, healthIntervalMs: 600_000 };
const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

t.test('down at start → degraded; up → healthy; killed → unavailable, then degraded; back → healthy with the data', async (t) => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'agentbox-css-data-'));
  let server: SolidServer | undefined;
  t.teardown(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const h = await startSlot('pods', onlySlot('pods', 'external-solid', `${MESH_CLIENT}[integrations.pods]\nurl = "http://127.0.0.1:${port}/"\n`), { timing });
  t.teardown(() => h.close());

  t.equal(h.state(), 'degraded', 'the slot starts degraded while the server is down');
  t.match(h.reason(), /connect-failed: .*cannot reach the Solid server at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  await t.rejects(h.ops.get('/anything.txt'), { code: 'ABX_ERR_ADAPTER_DEGRADED' }, 'operations answer degraded, not a hang');

  server = await startSolidServer({ port, dataDir });
  await waitFor('the slot to recover', () => h.state() === 'healthy', 30_000);
  const acknowledged: string[] = [];
  for (let i = 0; i < 5; i++) {
    await h.ops.put(`/kept/${i}.txt`, text(`value ${i}`), { contentType: 'text/plain' });
    acknowledged.push(`/kept/${i}.txt`);
  }

  await server.kill();
  const err = (await h.ops.get('/kept/0.txt').catch((e: unknown) => e)) as Error & { code?: string };
  t.equal(err.code, 'ABX_ERR_ADAPTER_UNAVAILABLE', 'the failing call says the backend is unavailable');
  t.match(err.message, /adapter slot "pods" backend unavailable: cannot reach the Solid server at http:\/\/127\.0\.0\.1:\d+/);
  t.equal(h.state(), 'degraded', 'the failure degrades the slot at once');
  await t.rejects(h.ops.put('/kept/late.txt', text('x'), { contentType: 'text/plain' }), { code: 'ABX_ERR_ADAPTER_DEGRADED' });

  server = await startSolidServer({ port, dataDir });
  await waitFor('the slot to recover again', () => h.state() === 'healthy', 30_000);
  for (const [i, p] of acknowledged.entries()) {
    t.equal(Buffer.from((await h.ops.get(p)).body).toString(), `value ${i}`, `${p} survived`);
  }
});

// /ready is live: 503 → 200 when the seal appears, back to 503 when a critical backend disappears or a mount goes, 200 again after.
import t from 'tap';
import { rm, mkdir, writeFile, rename } from 'node:fs/promises';
import { freePort, TcpBackend } from './support/tcp-backend.js';
import { tcpAdapterModule } from './support/tcp-adapter.js';
import { startTestServer, waitFor } from './support/harness.js';

const manifest = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';

t.test('readiness follows the seal, the critical orchestrator backend and the mounts, both ways', async (t) => {
  const port = await freePort();
  const backend = new TcpBackend(port);
  await backend.start();
  const box = await startTestServer({ toml: manifest, overrides: { orchestrator: tcpAdapterModule('orchestrator', port) } });
  t.teardown(async () => {
    await box.close();
    await backend.stop();
  });
  const ready = () => box.api('/ready', { auth: false });

  const before = await ready();
  t.equal(before.status, 503, 'no seal yet');
  t.equal(before.json['ready'], false);
  t.same(before.json['missing'], ['seal']);
  t.match(before.json['reason'], /bootstrap seal .*bootstrap\.done is absent/);
  t.equal(before.headers.get('cache-control'), 'no-store');

  // Written the way the seal listener writes it: a temp file renamed into place.
  await writeFile(`${box.paths.sealFile}.tmp`, 'sealed\n');
  await rename(`${box.paths.sealFile}.tmp`, box.paths.sealFile);
  const up = await waitFor('READY after the seal', async () => ((await ready()).status === 200 ? ready() : undefined), 2_000);
  t.same(up.json['requirements'], ['seal', 'mount:state', 'mount:workspace', 'mount:run', 'disk:state', 'disk:workspace', 'adapter:orchestrator']);
  t.same(up.json['degraded'], []);
  t.ok(Date.parse(String(up.json['since'])) > 0, 'since is a timestamp');

  await backend.stop();
  const down = await waitFor('UNREADY after the orchestrator backend went away', async () => {
    const r = await ready();
    return r.status === 503 ? r : undefined;
  });
  t.same(down.json['missing'], ['adapter:orchestrator']);
  t.match(down.json['reason'], /critical adapter orchestrator \(local-procmgr\) is degraded/);
  const health = await box.api('/health', { auth: false });
  t.equal(health.json['status'], 'degraded');

  await backend.start();
  await waitFor('READY again after the backend returned', async () => (await ready()).status === 200);

  await rm(box.paths.workspaceDir, { recursive: true });
  const noMount = await waitFor('UNREADY without the workspace', async () => {
    const r = await ready();
    return r.status === 503 ? r : undefined;
  });
  t.same(noMount.json['missing'], ['mount:workspace']);
  t.match(noMount.json['reason'], /workspace is not writable \(ENOENT\)/);
  await mkdir(box.paths.workspaceDir);
  await waitFor('READY with the workspace back', async () => (await ready()).status === 200);

  await rm(box.paths.sealFile);
  await waitFor('UNREADY when the seal is removed', async () => (await ready()).status === 503, 2_000);

  const flips = box.logs.events('ReadinessChanged').map((e) => e['ready']);
  t.same(flips, [false, true, false, true, false, true, false], 'every transition is logged as ReadinessChanged');
  t.ok(
    box.logs.events('SlotDegraded').some((e) => e['slot'] === 'orchestrator'),
    'the degradation is logged',
  );
  t.ok(
    box.logs.events('SlotRestored').some((e) => e['slot'] === 'orchestrator'),
    'the restoration is logged',
  );
});

t.test('the seal is noticed by the safety-net re-check when its directory appears late', async (t) => {
  const box = await startTestServer({ timing: { sealRecheckMs: 100, mountCheckMs: 100 } });
  t.teardown(() => box.close());
  await rm(box.paths.runDir, { recursive: true });
  // Not yet sealed, so already 503: wait for the mount check to have seen the directory gone.
  await waitFor('the run dir missed', async () => {
    const r = await box.api('/ready', { auth: false });
    return r.status === 503 && (r.json['missing'] as string[]).includes('mount:run');
  });
  await mkdir(box.paths.runDir);
  await writeFile(box.paths.sealFile, '');
  await waitFor('READY once the new directory holds the seal', async () => (await box.api('/ready', { auth: false })).status === 200, 3_000);
  const health = await box.api('/health', { auth: false });
  t.same(health.json['seal'], { path: box.paths.sealFile, present: true });
  t.equal(health.json['status'], 'ok');
});

t.test('a seal timeout recorded by the seal listener is the /ready reason and shows in /health until the seal comes', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const reason = 'the seal timed out after 120 s; still waiting for: worker';
  // Written the way the seal listener records a timeout.
  await writeFile(`${box.paths.bootstrapFailedFile}.tmp`, `${JSON.stringify({ reason, timeout: true, waiting_for: ['worker'] })}\n`);
  await rename(`${box.paths.bootstrapFailedFile}.tmp`, box.paths.bootstrapFailedFile);
  const ready = await waitFor('/ready to give the timeout', async () => {
    const r = await box.api('/ready', { auth: false });
    return r.status === 503 && String(r.json['reason']).includes('timed out') ? r : undefined;
  });
  t.match(ready.json, { ready: false, missing: ['seal'], reason: `bootstrap failed: ${reason}` });
  const health = await box.api('/health', { auth: false });
  t.same(health.json['seal'], { path: box.paths.sealFile, present: false, failure: reason }, '/health says why');
  t.equal(health.json['status'], 'degraded');

  // The programmes came up late: the listener seals and clears the timeout marker.
  await writeFile(box.paths.sealFile, '{}\n');
  await rm(box.paths.bootstrapFailedFile);
  await waitFor('READY once sealed', async () => (await box.api('/ready', { auth: false })).status === 200);
  t.same((await box.api('/health', { auth: false })).json['seal'], { path: box.paths.sealFile, present: true });
});

t.test('/health reports whether agents get their own namespaces', async (t) => {
  const box = await startTestServer({ toml: manifest });
  t.teardown(() => box.close());
  // The local orchestrator probed user namespaces with bwrap once at start (they work on the test machine).
  t.match((await box.api('/health', { auth: false })).json['sandbox'], {
    mode: 'confined',
    namespaces: { setting: 'auto', active: true, proc: 'fresh', checkedAt: String },
  });
});

t.test('/livez answers without any external check', async (t) => {
  const box = await startTestServer();
  t.teardown(() => box.close());
  const started = performance.now();
  const r = await box.api('/livez', { auth: false });
  t.equal(r.status, 200);
  t.same(r.json, { live: true });
  t.ok(performance.now() - started < 100, 'answers within 100 ms');
});

// Runtime contract, boot: readiness follows the seal, missing artifacts and a writable root are
// fatal, supervisord restarts a killed API or seal listener and readiness recovers, SIGTERM stops
// everything in reverse priority order.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BOOT_ONLY_MANIFEST, startBox, statusOf, waitForStatus } from './support/box-runner.js';
import { waitFor } from '../helpers/wait.js';
import { rc06KilledApiRestarts } from './support/shared-cases.js';

const WORKER = `
[programs.worker]
command = "/bin/sleep"
args = ["1000"]
priority = 500
required_for_readiness = true
`;

t.test('RC-02: /ready is 503 before the seal and 200 after it', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST + WORKER });
  t.teardown(() => box.stop());
  // The API answers before the seal exists: readiness must say so.
  await waitFor('the API to listen', async () => (await statusOf(`${box.apiUrl}/livez`)) === 200);
  const seal = path.join(box.hostRoot, 'run/agentbox/bootstrap.done');
  const before = await fetch(`${box.apiUrl}/ready`);
  const sealedAlready = existsSync(seal);
  if (!sealedAlready) {
    t.equal(before.status, 503, 'not ready while the seal is absent');
    t.match(await before.json(), { ready: false, missing: ['seal'] });
  } else {
    // The seal can win the race with the first request; then the rule is checked by removal below.
    await before.body?.cancel();
  }
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  t.ok(existsSync(seal), 'the seal file exists once ready');
  // The listener logs BootstrapCompleted after writing the seal, and the line reaches the box's
  // output through supervisord: /ready can be 200 before it arrives.
  await waitFor('BootstrapCompleted in the output', () => box.events().some((e) => e.event === 'BootstrapCompleted'));
  const events = box.events().map((e) => e.event);
  for (const e of ['StageAStarted', 'SecretsReady', 'ArtifactProbesPassed', 'StageACompleted', 'StageBCompleted', 'BootstrapSealStarted', 'BootstrapCompleted'])
    t.ok(events.includes(e), `event ${e}`);
  t.ok(
    box.events().every((e) => typeof e['agentbox.stage'] === 'string'),
    'every event names its stage',
  );
  // The seal is per boot and live: a required programme going down withdraws it.
  execFileSync('supervisorctl', [
    '-c',
    path.join(path.dirname(String(box.events().find((e) => e.event === 'ManifestLoaded')?.['manifest'])), 'supervisord.conf'),
    'stop',
    'worker',
  ]);
  await waitForStatus(`${box.apiUrl}/ready`, 503);
  t.notOk(existsSync(seal), 'seal withdrawn when a required programme stops');
});

t.test('RC-03: a missing required artifact is fatal and /ready never turns 200', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST + WORKER.replace('/bin/sleep', '/opt/missing/worker') });
  t.teardown(() => box.stop());
  const { code } = await box.exit;
  t.not(code, 0, 'the entrypoint exits non-zero');
  const events = box.events();
  t.match(
    events.find((e) => e.event === 'MissingArtifactDetected'),
    { capability: 'program:worker', path: '/opt/missing/worker', required: true },
  );
  t.match(
    events.find((e) => e.event === 'BootstrapFailed'),
    { 'agentbox.stage': 'A' },
  );
  t.equal(await statusOf(`${box.apiUrl}/ready`), 0, 'nothing ever listens');
  t.notOk(
    box.lines.some((l) => /supervisord started/.test(l)),
    'supervisord never starts',
  );
});

t.test('RC-04: a writable image root in strict mode is refused', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST, imageMode: true, env: { AGENTBOX_IMAGE_ROOT: '/tmp' } });
  t.teardown(() => box.stop());
  const { code } = await box.exit;
  t.equal(code, 1);
  t.match(
    box.events().find((e) => e.event === 'ImmutableRootWritable'),
    { image_root: '/tmp' },
  );
  t.ok(box.events().some((e) => e.event === 'BootstrapFailed'));
});

t.test('RC-06: killing the API makes supervisord restart it and readiness recovers', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST });
  t.teardown(() => box.stop());
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const conf = path.join(path.dirname(String(box.events().find((e) => e.event === 'ManifestLoaded')?.['manifest'])), 'supervisord.conf');
  // The case itself is shared with the container suite (tests/e2e/container.test.ts).
  await rc06KilledApiRestarts(t, {
    apiUrl: box.apiUrl,
    supervisorctl: (...args) => execFileSync('supervisorctl', ['-c', conf, ...args], { encoding: 'utf8' }),
    kill: (pid) => process.kill(pid, 'SIGKILL'),
  });
});

t.test('RC-07: SIGTERM stops every programme in reverse priority order within 10 s', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST + WORKER });
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const ms = await box.stop();
  t.ok(ms < 10_000, `stopped in ${ms} ms`);
  const { code } = await box.exit;
  t.equal(code, 0, 'supervisord exits cleanly');
  const stopped = box.lines.map((l) => /stopped: (\S+)/.exec(l)?.[1]).filter((n): n is string => n !== undefined);
  t.same(stopped, ['worker', 'management-api', 'egress-proxy', 'seal-listener'], 'highest priority number stops first');
});

t.test('RC-10: a failed stage B keeps /ready at 503 and says why', async (t) => {
  // features.gpu = "rocm" on a host without /dev/kfd and /dev/dri: stage B cannot satisfy it.
  const manifest = `${BOOT_ONLY_MANIFEST}
[features]
gpu = "rocm"

[security.exceptions.gpu-rocm]
reason = "runtime-contract case: the devices are absent on purpose"
`;
  const box = await startBox({ manifest });
  t.teardown(() => box.stop());
  await waitFor('the failure marker', () => existsSync(path.join(box.hostRoot, 'run/agentbox/bootstrap.failed')), 30_000);
  await waitFor('the API to listen', async () => (await statusOf(`${box.apiUrl}/livez`)) === 200);
  const ready = await waitFor('/ready to name the failure', async () => {
    const res = await fetch(`${box.apiUrl}/ready`);
    const body = (await res.json()) as { ready: boolean; reason?: string };
    return res.status === 503 && /bootstrap failed/.test(body.reason ?? '') ? body : undefined;
  });
  t.match(ready.reason, /features\.gpu = "rocm"/, 'the reason names what stage B could not do');
  // Stage B's line reaches the output through supervisord's pipe, maybe after its marker file.
  t.ok(await waitFor('StageBFailed in the output', () => box.events().some((e) => e.event === 'StageBFailed')), 'StageBFailed emitted');
  // supervisord reports the exit on its next poll, so the listener's event may come a little later.
  const failed = await waitFor('BootstrapFailed from the seal listener', () =>
    box.events().find((e) => e.event === 'BootstrapFailed' && e['agentbox.stage'] === 'seal'),
  );
  t.match(failed, { reason: /features\.gpu/ }, "the seal listener reports stage B's reason");
  t.notOk(existsSync(path.join(box.hostRoot, 'run/agentbox/bootstrap.done')), 'never sealed');
});

t.test('RC-11: killing the seal listener makes supervisord restart it, and the new one recovers the seal', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST + WORKER });
  t.teardown(() => box.stop());
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const conf = path.join(path.dirname(String(box.events().find((e) => e.event === 'ManifestLoaded')?.['manifest'])), 'supervisord.conf');
  const listenerPid = (): number => Number(execFileSync('supervisorctl', ['-c', conf, 'pid', 'seal-listener'], { encoding: 'utf8' }).trim()) || 0;
  const pid = listenerPid();
  t.ok(pid > 1, `seal listener pid ${pid}`);
  process.kill(pid, 'SIGKILL');
  const newPid = await waitFor('a new seal listener', () => {
    const next = listenerPid();
    return next > 0 && next !== pid ? next : undefined;
  });
  // bootstrap EXITED long ago and supervisord replays no events: the seal comes from its snapshot.
  const recovered = await waitFor('the new listener to seal', () => box.events().find((e) => e.event === 'BootstrapCompleted' && e['pid'] === newPid));
  t.equal(recovered['from_snapshot'], true);
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  t.ok(existsSync(path.join(box.hostRoot, 'run/agentbox/bootstrap.done')), 'the seal is in place');
  // And the new listener follows events from there.
  execFileSync('supervisorctl', ['-c', conf, 'stop', 'worker']);
  await waitForStatus(`${box.apiUrl}/ready`, 503);
  execFileSync('supervisorctl', ['-c', conf, 'start', 'worker']);
  await waitForStatus(`${box.apiUrl}/ready`, 200);
});

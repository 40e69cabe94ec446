// ip_forward across engines that overlap: the value before the first is put back by the last,
// never by one that stops while another still runs (that would cut the other's forwarding).
import t, { type Test } from 'tap';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { holdIpForward, liveEngines } from '../../../scripts/cli/image/ip-forward-guard.js';

function files(t: Test): { setting: string; registry: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-forward-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const setting = path.join(dir, 'ip_forward');
  writeFileSync(setting, '0\n');
  return { setting, registry: path.join(dir, 'engines') };
}

t.test('overlapping engines: the last one to stop puts the first value back', async (t) => {
  const f = files(t);
  const read = () => readFileSync(f.setting, 'utf8').trim();
  const releaseA = await holdIpForward('a', f);
  writeFileSync(f.setting, '1'); // dockerd A turns it on
  const releaseB = await holdIpForward('b', f);
  t.equal(liveEngines(f).length, 2);
  await releaseA();
  t.equal(read(), '1', 'A stops while B runs: B keeps its forwarding');
  await releaseB();
  t.equal(read(), '0', 'B was the last: the value before A is back');
  t.same(liveEngines(f), []);
});

t.test('an engine whose process died is forgotten', async (t) => {
  const f = files(t);
  const releaseA = await holdIpForward('a', f);
  writeFileSync(f.setting, '1');
  // A registration left by a process that no longer exists (pid 2^22 + 1 is above pid_max's ceiling).
  writeFileSync(path.join(f.registry, 'engine-4194305-dead'), '');
  await releaseA();
  t.equal(readFileSync(f.setting, 'utf8').trim(), '0', 'the dead one does not keep the setting on');
});

t.test('concurrent registrations take turns on the lock', async (t) => {
  const f = files(t);
  const releases = await Promise.all(['a', 'b', 'c', 'd'].map((n) => holdIpForward(n, f)));
  writeFileSync(f.setting, '1');
  t.equal(liveEngines(f).length, 4);
  await Promise.all(releases.map((r) => r()));
  t.equal(readFileSync(f.setting, 'utf8').trim(), '0');
});

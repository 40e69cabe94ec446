// The private engine the container suite runs on: an engine that cannot start fails with
// dockerd's own words (never a silent skip) and leaves nothing behind; a started one stops by its
// pid, removes its state and puts net.ipv4.ip_forward back.
import t from 'tap';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EngineStartError, startPrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { docker } from '../../scripts/cli/image/docker.js';
import { liveEngines } from '../../scripts/cli/image/ip-forward-guard.js';
import { e2eSkipped } from './support/compose-box.js';

const forward = () => readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim();
const engineDirs = () => readdirSync(tmpdir()).filter((n) => n.startsWith('agentbox-engine-'));

t.test('an engine that cannot start says why', { skip: e2eSkipped && 'AGENTBOX_E2E=skip' }, async (t) => {
  const before = new Set(engineDirs());
  const err = await startPrivateEngine({ extraArgs: ['--no-such-flag'] }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof EngineStartError, 'an EngineStartError');
  t.match((err as Error).message, /dockerd exited during start-up[\s\S]*no-such-flag/, "with dockerd's own message");
  // Its own directory: engines of other test files running beside this one make theirs meanwhile.
  const stateDir = (err as EngineStartError).stateDir;
  t.ok(
    stateDir && path.basename(stateDir).startsWith('agentbox-engine-') && !before.has(path.basename(stateDir)),
    'the failed start names the directory it made',
  );
  t.notOk(stateDir && existsSync(stateDir), 'its state directory is gone');
});

t.test('a started engine answers, then stops and leaves the host as it was', { skip: e2eSkipped && 'AGENTBOX_E2E=skip' }, async (t) => {
  const before = forward();
  const alone = liveEngines().length === 0;
  const engine = await startPrivateEngine();
  const dir = engine.host.replace(/^unix:\/\//, '').replace(/\/docker\.sock$/, '');
  t.match(docker(['version', '--format', '{{.Server.Os}}'], engine.env), /linux/, 'the engine answers on its own socket');
  await engine.stop();
  t.notOk(existsSync(dir), 'its state directory is removed');
  t.notOk(
    liveEngines().some((e) => e.endsWith(path.basename(dir))),
    'it no longer holds net.ipv4.ip_forward',
  );
  // Engines of other test files may overlap with this one: then the last of them puts the value
  // back (tests/unit/image/ip-forward-guard.test.ts covers the overlap).
  if (alone && liveEngines().length === 0) t.equal(forward(), before, 'net.ipv4.ip_forward is back to its value before');
});

// config/bin/agentbox-entrypoint starts the supervisord waker unless its owner wakes supervisord itself (AGENTBOX_WAKER=owner,
// as `agentbox up` does), and the variable does not reach supervisord. `node` and `supervisord` are recorders on PATH: what is
// tested is the script's own choice, with the real script.
import t, { type Test } from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const entrypoint = fileURLToPath(new URL('../../config/bin/agentbox-entrypoint', import.meta.url));

/** Run the entrypoint with recorders for `node` and `supervisord`; `node()` reads what node was asked to run so far. */
function runEntrypoint(t: Test, env: Record<string, string>): { node: () => string[]; supervisordEnv: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-entrypoint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const log = path.join(dir, 'node.log');
  writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho "$1" >> ${log}\n`);
  writeFileSync(path.join(dir, 'supervisord'), `#!/bin/sh\nenv > ${dir}/supervisord.env\n`);
  for (const f of ['node', 'supervisord']) chmodSync(path.join(dir, f), 0o755);
  const r = spawnSync(entrypoint, [], { env: { PATH: `${dir}:/usr/bin:/bin`, AGENTBOX_SUPERVISORD_CONF: '/nonexistent.conf', ...env }, encoding: 'utf8' });
  t.equal(r.status, 0, `the entrypoint ran: ${r.stderr}`);
  return {
    node: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    supervisordEnv: readFileSync(path.join(dir, 'supervisord.env'), 'utf8'),
  };
}

t.test('without an owner that wakes supervisord, the entrypoint starts the waker beside it', async (t) => {
  const { node } = runEntrypoint(t, {});
  t.match(node()[0], /dist\/box\/entrypoint\.js$/, 'stage A first');
  // The waker runs in the background: its start is recorded when it comes.
  for (let i = 0; i < 500 && node().length < 2; i++) await sleep(20);
  t.match(node()[1], /dist\/box\/wake-supervisord\.js$/, 'the waker started');
});

t.test('with AGENTBOX_WAKER=owner it starts no waker, and supervisord does not see the variable', async (t) => {
  const { node, supervisordEnv } = runEntrypoint(t, { AGENTBOX_WAKER: 'owner' });
  // Had a waker been started in the background, its start would be recorded by now.
  await sleep(300);
  t.same(
    node().map((a) => path.basename(a)),
    ['entrypoint.js'],
    'stage A only',
  );
  t.notMatch(supervisordEnv, /AGENTBOX_WAKER/);
});

// The namespaces probe, with the real bwrap: on a host every check passes; under a read-only
// /proc/sys (as Docker mounts it) --disable-userns cannot be set, and the agent's bwrap command
// leaves it out rather than fail every spawn.
import t from 'tap';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { namespacesVerdict } from '../../../management-api/src/sandbox/namespaces-probe.js';
import { bwrapArgv } from '../../../management-api/src/sandbox/bwrap-argv.js';

const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-nsprobe-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

t.test('on this host: namespaces, a fresh /proc and --disable-userns all work', async (t) => {
  const v = await namespacesVerdict({ bwrap: '/usr/bin/bwrap' });
  t.same([v.available, v.freshProc, v.disableUserns], [true, true, true], JSON.stringify(v));
});

t.test('under a read-only /proc/sys (the container): available, without --disable-userns', async (t) => {
  // bwrap run inside an outer bwrap whose /proc/sys is read-only, as in a Docker container.
  const wrapper = path.join(dir, 'bwrap-ro-sys');
  writeFileSync(
    wrapper,
    '#!/bin/sh\nexec /usr/bin/bwrap --unshare-user --unshare-pid --ro-bind / / --proc /proc --ro-bind /proc/sys /proc/sys --dev /dev -- /usr/bin/bwrap "$@"\n',
  );
  chmodSync(wrapper, 0o755);
  const v = await namespacesVerdict({ bwrap: wrapper });
  t.equal(v.available, true, `namespaces still work (${JSON.stringify(v)})`);
  t.equal(v.disableUserns, false, 'but bwrap cannot set user.max_user_namespaces there');
});

t.test('the agent command carries --disable-userns only where it works', async (t) => {
  const plan = {
    bwrap: '/usr/bin/bwrap',
    readOnly: [],
    readWrite: [],
    cwd: '/',
    proc: 'ro-bind' as const,
    sockets: [],
    inner: ['true'],
    probe: () => undefined,
  };
  t.ok(bwrapArgv(plan).includes('--disable-userns'), 'by default');
  t.ok(bwrapArgv({ ...plan, disableUserns: true }).includes('--disable-userns'), 'where the probe found it works');
  t.notOk(bwrapArgv({ ...plan, disableUserns: false }).includes('--disable-userns'), 'left out where it does not');
});

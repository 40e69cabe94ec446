// Runtime contract, hardening: boots to ready under bubblewrap (read-only root, tmpfs only,
// uid 1000, no capabilities), with no network at all, and keeps secrets out of every child's
// environment and out of the logs. Nothing is installed at start.
import t from 'tap';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { BOOT_ONLY_MANIFEST, startBox, statusOf, waitForStatus } from './support/box-runner.js';
import { repoRoot } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { rc08NoSecretInEnvironmentOrLogs } from './support/shared-cases.js';

/** Processes whose ancestry includes `rootPid`, with their uid and environment. */
function descendants(rootPid: number): Array<{ pid: number; cmd: string; uid: number; env: string }> {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Exited meanwhile.
    }
  }
  const isUnder = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p)) if (p === rootPid) return true;
    return false;
  };
  return [...parent.keys()].filter(isUnder).flatMap(procInfo);
}

/** Command line, uid and environment of `pid` ([] when it has exited). */
function procInfo(pid: number): Array<{ pid: number; cmd: string; uid: number; env: string }> {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return [
      {
        pid,
        cmd: readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim(),
        uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]),
        env: readFileSync(`/proc/${pid}/environ`, 'utf8'),
      },
    ];
  } catch {
    return [];
  }
}

t.test('RC-05: boots to ready under bubblewrap — read-only root, tmpfs only, uid 1000, no capabilities', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST, sandbox: true, shareNet: true, imageMode: true });
  t.teardown(() => box.stop());
  await waitForStatus(`${box.apiUrl}/ready`, 200, 60_000);
  t.ok(
    box.events().some((e) => e.event === 'ImmutableRootVerified'),
    'stage A found the image root read-only',
  );
  const procs = descendants(box.proc.pid!).filter((p) => !/^(bwrap|setpriv)/.test(p.cmd));
  t.ok(
    procs.some((p) => /supervisord/.test(p.cmd)),
    'supervisord runs in the sandbox',
  );
  t.ok(
    procs.some((p) => /box\/management-api\.js/.test(p.cmd)),
    'the API runs in the sandbox',
  );
  for (const p of procs) {
    const status = readFileSync(`/proc/${p.pid}/status`, 'utf8');
    t.equal(/^CapEff:\s+(\S+)/m.exec(status)?.[1], '0000000000000000', `${p.cmd.slice(0, 40)}: no effective capabilities`);
  }
  for (const p of procs) t.equal(p.uid, 1000, `${p.cmd.slice(0, 40)} runs as uid 1000`);
  // Writes went only to the writable roots (tmpfs inside the sandbox): the host tree is untouched.
  const stray = spawnSync('find', [
    repoRoot,
    '-newer',
    path.join(repoRoot, 'package.json'),
    '-path',
    '*/node_modules',
    '-prune',
    '-o',
    '-path',
    '*/.git',
    '-prune',
    '-o',
    '-name',
    '*.sock',
    '-print',
  ])
    .stdout.toString()
    .trim();
  t.equal(stray, '', 'no socket or state file appeared in the checkout');
});

t.test('RC-01: boots with no network (only a private loopback)', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST, sandbox: true, shareNet: false, imageMode: true });
  t.teardown(() => box.stop());
  t.equal(await statusOf(`${box.apiUrl}/livez`), 0, 'the host cannot reach it: its network is its own');
  const supervisord = await waitFor('supervisord in the sandbox', () => descendants(box.proc.pid!).find((p) => /supervisord/.test(p.cmd)));
  const probe = `fetch(${JSON.stringify(`${box.apiUrl}/ready`)}).then(r => process.stdout.write(String(r.status))).catch(() => process.stdout.write('0'))`;
  await waitFor(
    '/ready 200 inside the sandbox network',
    () => {
      const r = spawnSync('nsenter', ['-t', String(supervisord.pid), '-n', '--', process.execPath, '-e', probe]);
      return r.stdout.toString() === '200';
    },
    60_000,
    200,
  );
  const links = spawnSync('nsenter', ['-t', String(supervisord.pid), '-n', '--', 'ip', '-o', 'link']).stdout.toString();
  t.same(
    links
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':')[1]?.trim()),
    ['lo'],
    'the only interface is loopback',
  );
});

t.test('RC-08: no secret appears in any child environment or in the logs', async (t) => {
  const box = await startBox({ manifest: BOOT_ONLY_MANIFEST });
  t.teardown(() => box.stop());
  await waitForStatus(`${box.apiUrl}/ready`, 200);
  const secret = (f: string) => readFileSync(path.join(box.hostRoot, 'var/lib/agentbox/secrets', f), 'utf8').trim();
  for (const f of ['api-key', 'identity.key'])
    t.equal(execFileSync('stat', ['-c', '%a', path.join(box.hostRoot, 'var/lib/agentbox/secrets', f)], { encoding: 'utf8' }).trim(), '600', `${f} is 0600`);
  // The case itself is shared with the container suite (tests/e2e/container.test.ts). The
  // entrypoint's pid is supervisord's (it execs), and every programme descends from it.
  await rc08NoSecretInEnvironmentOrLogs(t, {
    apiUrl: box.apiUrl,
    processes: () => [...procInfo(box.proc.pid!), ...descendants(box.proc.pid!)],
    secrets: () => ({ apiKey: secret('api-key'), identity: secret('identity.key') }),
    logs: () => box.lines.join('\n'),
  });
  // And the logs of the whole run, shutdown included.
  await box.stop();
  const log = box.lines.join('\n');
  t.notOk(log.includes(secret('api-key')) || log.includes(secret('identity.key')), 'no secret in the logs of the whole run');
});

t.test('RC-09: nothing is installed at start (boot scripts are scanned)', async (t) => {
  const installers = /\b(apt-get|apt|dpkg -i|npm (install|i|ci)|npx|pip3? install|nix-env|nix profile|curl|wget|yarn add|pnpm add)\b/;
  const dirs = [path.join(repoRoot, 'config/bin'), path.join(repoRoot, 'management-api/src/boot')];
  let scanned = 0;
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const code = text
        .split('\n')
        .filter((l) => !/^\s*(#|\/\/|\*|\/\*\*)/.test(l))
        .join('\n');
      t.notMatch(code, installers, `${f} installs nothing`);
      scanned++;
    }
  }
  t.ok(scanned >= 10, `${scanned} boot files scanned`);
});

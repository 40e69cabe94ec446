// A full disk under a restore, through the real CLI on small tmpfs mounts (each in a user and mount namespace of its own):
// the new root's disk full is said with the restore's own fix (--root, not backup's --to) and leaves nothing there; a full
// $TMPDIR while a tar backup is unpacked is said as that, naming the place and the room needed, never as a damaged backup.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { agentboxBin, runAgentbox } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-full-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

// A box of 3 MiB that does not compress, backed up as a directory and as a tar.
const root = path.join(work, 'box');
mkdirSync(path.join(root, 'var/lib/agentbox/pods/docs'), { recursive: true });
writeFileSync(path.join(root, 'var/lib/agentbox/pods/docs/blob'), randomBytes(3 * 1024 * 1024));
const backup = path.join(work, 'backup');
const tar = path.join(work, 'backup.tar');
for (const to of [backup, tar]) t.equal(runAgentbox(['backup', '--root', root, '--to', to], { cwd: work }).code, 0, `backed up to ${to}`);

/** `agentbox ...args` with a 1 MiB tmpfs mounted at `small` (made here), env `env`; then what is left on it. */
function onSmallDisk(small: string, args: string[], env: Record<string, string> = {}) {
  mkdirSync(small);
  const script = 'mount -t tmpfs -o size=1m none "$1" && shift && "$@"; echo "exit=$?"; ls -A "$SMALL"';
  return spawnSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, 'sh', small, process.execPath, agentboxBin, ...args], {
    encoding: 'utf8',
    cwd: work,
    env: { ...process.env, ...env, SMALL: small },
  });
}

t.test("the new root's disk full: said with the restore's fix, nothing left on it", async (t) => {
  const small = path.join(work, 'small-root');
  const run = onSmallDisk(small, ['restore', backup, '--root', path.join(small, 'new')]);
  t.equal(run.stdout, 'exit=1\n', `fails, and leaves nothing: ${run.stderr}`);
  t.match(run.stderr, `no space left on the device while writing the restore into ${path.join(small, 'new')}: free some space or restore elsewhere (--root)`);
  t.notMatch(run.stderr, /--to/, "never backup's option");
});

t.test('a full $TMPDIR while a tar is unpacked: said as that, for verify and restore alike', async (t) => {
  const small = path.join(work, 'small-tmp');
  const size = statSync(tar).size;
  for (const args of [
    ['backup', 'verify', tar],
    ['restore', tar, '--root', path.join(work, 'restored')],
  ]) {
    const run = onSmallDisk(small, args, { TMPDIR: small });
    rmSync(small, { recursive: true, force: true });
    t.equal(run.stdout.split('\n').at(-2), 'exit=1', `${args[0]}: fails, and leaves nothing in TMPDIR: ${run.stdout}${run.stderr}`);
    t.match(
      `${run.stdout}${run.stderr}`,
      new RegExp(
        `no space left on the device while writing ${tar} unpacked into ${small}/agentbox-unpacked-\\w+: free some space in ${small}, or set TMPDIR to a place with room for ${size} bytes`,
      ),
    );
    t.notMatch(`${run.stdout}${run.stderr}`, /not whole/, 'never said as a damaged backup');
  }
});

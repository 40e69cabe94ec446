// The place a restore's root or a backup's --to names, beyond its name: a place that takes no new directory (read-only,
// not this user's, /proc) fails before the backup is unpacked or checked; a symbolic link is written through, never
// replaced (a dangling one is refused); a mount point is refused at once, not after the work; and a place filled while
// the work ran is left as it is (never removed to make room), the run failing with nothing of it kept. A backup into the
// box's own state (copied into itself) and a restore into the backup directory are refused.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupBoxRoot } from '../helpers/backup-box-root.js';
import { agentboxBin, runAgentbox } from '../helpers/cli.js';
import { createBackup } from '../../management-api/src/backup/create-backup.js';
import { restoreBackup } from '../../management-api/src/backup/restore-backup.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-places-'));
// Searchable by the unprivileged user one case runs as.
chmodSync(work, 0o755);
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const agentbox = (...args: string[]) => runAgentbox(args, { cwd: work });

const root = backupBoxRoot(path.join(work, 'box'));
const backup = path.join(work, 'backup.tar');
t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0, 'the backup to restore');
chmodSync(backup, 0o644);
/** Nothing a run leaves beside its target when it fails. */
const leftBeside = () => readdirSync(work).filter((n) => /\.(partial|restoring)-/.test(n));

t.test('a place that takes no new directory fails before the backup is unpacked or checked', async (t) => {
  const proc = agentbox('restore', backup, '--root', `/proc/agentbox-test-${process.pid}`);
  t.match(proc, { code: 1, stderr: /\/proc takes no new directories/ });
  t.notMatch(proc.stderr, /checking/, '/proc: nothing checked first');

  // Not this user's: as an unprivileged user when the test runs as root (who may write anywhere).
  const locked = path.join(work, 'locked');
  mkdirSync(locked, { mode: 0o555 });
  chmodSync(locked, 0o555);
  const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
  const denied = spawnSync(process.execPath, [agentboxBin, 'restore', backup, '--root', path.join(locked, 'new')], { encoding: 'utf8', cwd: work, ...asUser });
  t.equal(denied.status, 1, denied.stderr);
  t.match(denied.stderr, `permission denied in ${locked}: name a place this user can write`);
  t.notMatch(denied.stderr, /checking/, 'not writable: nothing checked first');

  // A read-only filesystem, mounted in a user and mount namespace of its own.
  const readOnly = path.join(work, 'read-only');
  mkdirSync(readOnly);
  const ro = spawnSync(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      'mount -t tmpfs -o ro none "$1" && "$2" "$3" restore "$4" --root "$1/new"',
      'sh',
      readOnly,
      process.execPath,
      agentboxBin,
      backup,
    ],
    { encoding: 'utf8', cwd: work },
  );
  t.equal(ro.status, 1, ro.stderr);
  t.match(ro.stderr, `${readOnly} is on a read-only filesystem: name a place on a writable one`);
  t.notMatch(ro.stderr, /checking/, 'read-only: nothing checked first');
  t.same(leftBeside(), [], 'nothing left beside');
});

t.test('a mount point is refused before any work, naming a directory in it to use', async (t) => {
  const mounted = path.join(work, 'mounted');
  mkdirSync(mounted);
  const run = spawnSync(
    'unshare',
    [
      '--user',
      '--map-root-user',
      '--mount',
      'sh',
      '-c',
      'mount -t tmpfs none "$1" && "$2" "$3" restore "$4" --root "$1"; echo "exit=$?"; ls -A "$1"',
      'sh',
      mounted,
      process.execPath,
      agentboxBin,
      backup,
    ],
    { encoding: 'utf8', cwd: work },
  );
  t.equal(run.stdout, 'exit=1\n', `refused, and nothing written on the mounted disk: ${run.stderr}`);
  t.match(run.stderr, `${mounted} is a mount point`);
  t.match(run.stderr, `name a new directory in it (${path.join(mounted, 'NAME')})`);
  t.notMatch(run.stderr, /checking/, 'nothing checked first');
});

t.test('a symbolic link is restored and backed up through; a dangling one is refused', async (t) => {
  for (const [what, args] of [
    ['restore', (to: string) => ['restore', backup, '--root', to]],
    ['backup', (to: string) => ['backup', '--root', root, '--to', to]],
  ] as const) {
    const target = path.join(work, `${what}-target`);
    const link = path.join(work, `${what}-link`);
    mkdirSync(target);
    symlinkSync(target, link);
    const run = agentbox(...args(link));
    t.equal(run.code, 0, run.stderr);
    t.ok(lstatSync(link).isSymbolicLink(), `${what}: the link is still a link`);
    t.equal(readlinkSync(link), target);
    t.ok(readdirSync(target).length > 0, `${what}: written into the directory the link names`);

    const dangling = path.join(work, `${what}-dangling`);
    symlinkSync(path.join(work, 'nowhere'), dangling);
    t.match(agentbox(...args(dangling)), {
      code: 1,
      stderr: `${dangling} is a symbolic link to ${path.join(work, 'nowhere')}, which does not exist: make it first`,
    });
    t.ok(lstatSync(dangling).isSymbolicLink(), `${what}: the dangling link is left as it was`);
    t.notOk(existsSync(path.join(work, 'nowhere')));
  }
  t.same(leftBeside(), [], 'nothing left beside');
});

t.test('a place filled while the work ran is left as it is; the run fails, keeping nothing', async (t) => {
  /** Fill `place` (a directory, or a file when `file`) as the step `at` starts. */
  const fillAt =
    (at: RegExp, place: string, file = false) =>
    (step: string) => {
      if (!at.test(step)) return;
      if (file) writeFileSync(place, 'written meanwhile\n');
      else writeFileSync(path.join(place, 'kept.txt'), 'written meanwhile\n');
    };
  const restored = path.join(work, 'restored-filled');
  mkdirSync(restored);
  await t.rejects(restoreBackup({ from: backup, root: restored, progress: fillAt(/^restoring/, restored) }), {
    message: `${restored} was taken while this ran (something was put there meanwhile): it is left as it is`,
  });
  t.same(readdirSync(restored), ['kept.txt'], 'restore: what was put there is kept');

  const backedUp = path.join(work, 'backup-filled');
  await t.rejects(
    createBackup({
      root,
      to: backedUp,
      progress: (step) => {
        if (/^index/.test(step)) mkdirSync(backedUp);
        fillAt(/^index/, backedUp)(step);
      },
    }),
    { message: `${backedUp} was taken while this ran` },
  );
  t.same(readdirSync(backedUp), ['kept.txt'], 'backup: what was put there is kept');

  const tar = path.join(work, 'filled.tar');
  await t.rejects(createBackup({ root, to: tar, progress: fillAt(/^packing/, tar, true) }), { message: `${tar} was taken while this ran` });
  t.equal(readFileSync(tar, 'utf8'), 'written meanwhile\n', 'backup to a tar: the file put there is kept');
  t.same(leftBeside(), [], 'nothing left beside');
});

t.test("a backup into the box's own state, or a restore into the backup, is refused before it copies anything", async (t) => {
  const state = path.join(root, 'var/lib/agentbox');
  const intoPods = path.join(state, 'pods/backup');
  // Through a link as well: the place it leads to is what counts.
  const viaLink = path.join(work, 'state-link');
  symlinkSync(path.join(state, 'pods'), viaLink);
  for (const to of [intoPods, path.join(viaLink, 'backup.tar'), path.join(state, 'snapshots')]) {
    const run = agentbox('backup', '--root', root, '--to', to);
    t.equal(run.code, 1, run.stderr);
    t.match(run.stderr, `is inside the box's state ${state}, which the backup copies (into itself): back up to a place outside it`);
    t.notMatch(run.stderr, /SQLite store/, 'refused before copying');
  }
  t.same(readdirSync(path.join(state, 'pods')), ['docs'], 'nothing written into the pods');

  const dirBackup = path.join(work, 'dir-backup');
  t.equal(agentbox('backup', '--root', root, '--to', dirBackup).code, 0);
  const inside = path.join(dirBackup, 'restored');
  t.match(agentbox('restore', dirBackup, '--root', inside), {
    code: 1,
    stderr: `${inside} is inside the backup ${dirBackup}, which would then hold files its index does not name`,
  });
  t.notOk(existsSync(inside));
  t.match(agentbox('backup', 'verify', dirBackup), { code: 0, stdout: /whole/ }, 'the backup still verifies');
});

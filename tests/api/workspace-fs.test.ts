// The workspaces' filesystem, checked by `agentbox doctor` and at the box's start: which mount a directory is on (against
// findmnt, and mountinfo's corner cases), whether an ext4 has a journal (real loop-mounted ext4 filesystems with and
// without one), and the warning with its fix.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ext4HasJournal, mountOf } from '../../management-api/src/workspace-files/workspace-fs.js';
import { workspaceFsCheck } from '../../scripts/cli/workspace-fs-check.js';
import { canRunAsRoot, mountImage } from '../helpers/as-root.js';
import { runAgentboxAsync } from '../helpers/cli.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { startTestServer } from './support/harness.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-fs-check-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** The `major:minor` of the filesystem `dir` is on, as the kernel reports it (the glibc encoding of dev_t). */
function deviceOf(dir: string): string {
  const dev = BigInt(statSync(dir, { bigint: true }).dev);
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return `${major}:${minor}`;
}

t.test("the mount of a directory: findmnt's mount point and type, and the device stat reports, on this machine's own mount table", async (t) => {
  const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  // /dev/shm may be mounted twice at one point; the later mount is the one seen there (stat's device).
  for (const dir of ['/', tmpdir(), '/proc', '/dev/shm', '/sys/fs/cgroup']) {
    const [target, fsType] = execFileSync('findmnt', ['-n', '-o', 'TARGET,FSTYPE', '-T', dir], { encoding: 'utf8' }).trim().split(/\s+/);
    t.match(mountOf(dir, mountinfo), { mountPoint: target, fsType, device: deviceOf(dir) }, dir);
  }
});

t.test('mountinfo: the deepest mount wins, a later mount hides an earlier one, names are unescaped, no prefix match', async (t) => {
  const mountinfo = [
    '27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '40 27 8:1 / /data rw,relatime shared:5 master:2 - xfs /dev/sdb1 rw',
    '41 27 8:2 / /database rw - btrfs /dev/sdc1 rw',
    '42 40 0:50 / /data/my\\040disk rw - tmpfs some\\040tmpfs rw',
    '43 40 7:0 / /data/over rw - ext4 /dev/loop0 rw',
    '44 40 7:1 / /data/over rw - ext4 /dev/loop1 rw',
    '',
  ].join('\n');
  t.match(mountOf('/home/x', mountinfo), { mountPoint: '/', fsType: 'ext4', device: '254:0' });
  t.match(mountOf('/data/ws', mountinfo), { mountPoint: '/data', fsType: 'xfs', source: '/dev/sdb1' }, 'optional fields before the separator');
  t.match(mountOf('/database/ws', mountinfo), { mountPoint: '/database', fsType: 'btrfs' }, '/data is not a mount of /database');
  t.match(mountOf('/data/my disk/ws', mountinfo), { mountPoint: '/data/my disk', fsType: 'tmpfs', source: 'some tmpfs' });
  t.match(mountOf('/data/over', mountinfo), { device: '7:1' }, 'the later of two mounts at one point');
  t.equal(mountOf('/x', ''), undefined);
});

t.test('a journal is read from sysfs by the block device, and its absence is a warning with the fix', async (t) => {
  // A sysfs laid out as the kernel's: /sys/dev/block/<major:minor> links to the device, /sys/fs/ext4/<device> holds journal_task.
  const sys = path.join(work, 'sys');
  for (const [device, name, task] of [
    ['7:0', 'loop0', '2790'],
    ['7:1', 'loop1', '<none>'],
  ] as const) {
    mkdirSync(path.join(sys, 'devices/virtual/block', name), { recursive: true });
    mkdirSync(path.join(sys, 'dev/block'), { recursive: true });
    symlinkSync(`../../devices/virtual/block/${name}`, path.join(sys, 'dev/block', device));
    mkdirSync(path.join(sys, 'fs/ext4', name), { recursive: true });
    writeFileSync(path.join(sys, 'fs/ext4', name, 'journal_task'), `${task}\n`);
  }
  t.equal(ext4HasJournal('7:0', sys), true);
  t.equal(ext4HasJournal('7:1', sys), false);
  t.equal(ext4HasJournal('7:9', sys), undefined, 'a device sysfs does not know');

  const ws = path.join(work, 'root/workspace');
  const at = (device: string) => `1 0 ${device} / / rw - ext4 /dev/${device === '7:0' ? 'loop0' : 'loop1'} rw\n`;
  t.match(workspaceFsCheck(ws, { mountinfo: at('7:0'), sysRoot: sys }), {
    ok: true,
    warn: undefined,
    detail: /on ext4 \(\/dev\/loop0, mounted at \/\), with a journal; forks copy every byte/,
  });
  const bare = workspaceFsCheck(ws, { mountinfo: at('7:1'), sysRoot: sys });
  t.match(bare, {
    ok: true,
    warn: true,
    detail: /^.*\/root\/workspace is on ext4 \(\/dev\/loop1, mounted at \/\) without a journal: /,
    fix: /tune2fs -O has_journal \/dev\/loop1$/,
  });
  t.match(workspaceFsCheck(ws, { mountinfo: '1 0 0:9 / / rw - xfs /dev/sda rw\n', sysRoot: sys }), { ok: true, warn: undefined, detail: /is on xfs/ });
  t.match(workspaceFsCheck(ws, { mountinfo: at('7:5'), sysRoot: sys }), {
    ok: true,
    warn: undefined,
    detail: /whether it has a journal cannot be read from sysfs$/,
  });
});

const canMount = canRunAsRoot();
const ext4Case = 'agentbox doctor and a box started on real ext4 filesystems, loop-mounted: a warning without a journal, none with one';
t.test(ext4Case, { skip: canMount ? false : 'loop mounts need root or passwordless sudo (the sysfs layout is checked above)' }, async (t) => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));
  for (const journaled of [false, true]) {
    const { mnt, unmount } = mountImage(work, `mnt-${journaled}`, 32, ['mkfs.ext4', '-q', '-F', ...(journaled ? [] : ['-O', '^has_journal'])]);
    t.teardown(unmount);
    const root = path.join(mnt, 'box');
    const r = await runAgentboxAsync(['doctor', '--root', root, '--json'], { cwd: work, env });
    const check = (JSON.parse(r.stdout) as { checks: { name: string; ok: boolean; warn?: true; detail: string; fix?: string }[] }).checks.find(
      (c) => c.name === 'workspace filesystem',
    );
    t.match(check, { ok: true, detail: new RegExp(`^${root}/workspace is on ext4 \\(/dev/loop\\d+, mounted at ${mnt}\\)`) }, String(journaled));
    if (journaled) t.match(check, { warn: undefined, detail: /, with a journal; forks copy every byte \(on btrfs they would be clones\)$/ });
    else t.match(check, { warn: true, detail: /without a journal/, fix: /tune2fs -O has_journal \/dev\/loop\d+$/ });
    const text = await runAgentboxAsync(['doctor', '--root', root], { cwd: work, env });
    t.match(
      text.stdout,
      journaled ? /^ok {4}workspace filesystem: .*, with a journal; forks copy/m : /^warn {2}workspace filesystem: .*without a journal.*\n {6}fix: .*tune2fs/m,
    );

    // A box started on it says so once in its log, at warn level, with the device and the fix.
    const paths = runtimePaths({ AGENTBOX_ROOT: root });
    for (const d of [paths.runDir, paths.stateDir, paths.workspaceDir]) mkdirSync(d, { recursive: true });
    const box = await startTestServer({ root: { dir: root, paths, cleanup: async () => rmSync(root, { recursive: true, force: true }) } });
    const warned = box.logs.events('WorkspaceWithoutJournal');
    await box.close();
    if (journaled) t.same(warned, [], 'no warning on a journaled filesystem');
    else
      t.match(warned, [{ level: 40, workspaceDir: paths.workspaceDir, device: /^\/dev\/loop\d+$/, fix: /tune2fs -O has_journal/, msg: /without a journal/ }]);
  }
});

// Snapshot clones on a real btrfs, loop-mounted: an agent's own directory is a subvolume, a snapshot keeps a read-only
// clone of it and walks that (every entry of one instant), forks and restores become writable snapshots of the clone
// (the same tree a copying build makes, sharing its bytes), clones that would differ are not kept, deletes and kills
// leave none behind, an unprivileged box removes them entry by entry, and a real box forks agents from one.
import t from 'tap';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, readFile, readlink, rename, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { removeClones } from '../../management-api/src/snapshots/clones.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { isSubvolume, makeAgentDirectory, Subvolumes } from '../../management-api/src/sandbox/subvolumes.js';
import { installedLauncher } from '../../management-api/src/sandbox/launcher-binary.js';
import { walkDisk } from '../../management-api/src/sandbox/limits/disk-walk.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { describeWorkspaceFs } from '../../management-api/src/workspace-files/workspace-fs.js';
import { asRoot, canRunAsRoot, mountImage } from '../helpers/as-root.js';
import { tarOf } from '../helpers/deep-tree.js';
import { runAgentboxAsync } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { rootAt, startTestServer } from './support/harness.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-clones-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const hasMkfs = ['/usr/sbin/mkfs.btrfs', '/sbin/mkfs.btrfs', '/usr/bin/mkfs.btrfs'].some((p) => existsSync(p));
const skip = !canRunAsRoot()
  ? 'loop mounts need root or passwordless sudo'
  : !hasMkfs
    ? 'mkfs.btrfs is missing (apt-get install btrfs-progs; npm test installs it)'
    : false;

/** Type, permission bits, owner, mtime (to the millisecond: a copying build sets it through a double) and content of every entry under `dir`, links as their targets. */
async function treeOf(dir: string, prefix = ''): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    const p = path.join(dir, name);
    const st = await lstat(p, { bigint: true });
    const rel = prefix + name;
    const meta = `${(st.mode & 0o7777n).toString(8)}:${st.uid}:${st.gid}:${Math.round(Number(st.mtimeNs) / 1e6)}`;
    if (st.isSymbolicLink()) out[rel] = `link:${await readlink(p)}:${st.uid}`;
    else if (st.isDirectory()) {
      out[rel] = `dir:${meta}`;
      Object.assign(out, await treeOf(p, `${rel}/`));
    } else if (st.isFile())
      out[rel] = `file:${meta}:${createHash('sha256')
        .update(await readFile(p))
        .digest('hex')}`;
    else out[rel] = 'other';
  }
  return out;
}

/** A little source tree: nested directories with their own modes, small files, a private one, one of three chunks, links, set times. */
async function fill(dir: string): Promise<void> {
  await mkdir(path.join(dir, 'src/lib'), { recursive: true });
  for (let i = 0; i < 30; i++) await writeFile(path.join(dir, `src/lib/m${i}.ts`), `export const v${i} = ${i};\n`.repeat(40));
  await writeFile(path.join(dir, 'big.bin'), Buffer.alloc(3 * 1024 * 1024 + 17, 7));
  await writeFile(path.join(dir, 'private.key'), 'secret-ish\n', { mode: 0o600 });
  await writeFile(path.join(dir, 'empty'), '');
  await writeFile(path.join(dir, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 });
  await symlink('src/lib/m1.ts', path.join(dir, 'link-inside'));
  await symlink('/etc/passwd', path.join(dir, 'link-out'));
  await chmod(path.join(dir, 'src/lib'), 0o750);
  await utimes(path.join(dir, 'src/lib/m3.ts'), 1_600_000_000, 1_600_000_000.5);
  await utimes(path.join(dir, 'src'), 1_500_000_000, 1_500_000_000);
}

const captureOf = async (store: SnapshotStore, dir: string, agent = 'agt_a') => {
  const handle = await open(dir, DIR_FLAGS);
  try {
    return await store.create({ rootFd: handle.fd, ownUid: process.getuid?.() ?? 0, agent: { id: agent, name: 'a', cwd: path.basename(dir) } });
  } finally {
    await handle.close();
  }
};

t.test('clones on a real btrfs', { skip }, async (t) => {
  const { mnt, unmount } = mountImage(work, 'btrfs', 256, ['mkfs.btrfs', '-q']);
  t.teardown(unmount);
  const storeDir = path.join(mnt, 'state/snapshots');
  const clonesDir = path.join(storeDir, 'clones');
  const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }), durable: false });
  await store.open();
  t.teardown(() => store.close());

  const ws = path.join(mnt, 'workspace/alpha');
  await mkdir(path.dirname(ws), { recursive: true });
  await makeAgentDirectory(ws);
  t.ok(await isSubvolume(ws), "an agent's own directory on btrfs is a subvolume");
  const plain = path.join(work, 'plain');
  await makeAgentDirectory(plain);
  t.notOk(await isSubvolume(plain), 'elsewhere a plain directory');
  t.match(
    describeWorkspaceFs(ws),
    { warn: false, detail: /is on btrfs \(.*\): forks and restores of agents' snapshots are clones that share their bytes$/ },
    'doctor says so',
  );
  await fill(ws);
  const original = await treeOf(ws);

  const first = await captureOf(store, ws);
  t.ok(await isSubvolume(path.join(clonesDir, first.id)), 'the snapshot keeps a clone');
  t.throws(() => writeFileSync(path.join(clonesDir, first.id, 'x'), 'x'), { code: 'EROFS' }, 'the clone is read-only');
  t.match(first.stats, { files: 34, symlinks: 2, skipped: 0, changed: 0 });

  await t.test('a fork is a writable snapshot of the clone: the tree a copying build makes, not what changed since', async (t) => {
    await writeFile(path.join(ws, 'src/lib/m0.ts'), 'changed after the snapshot\n');
    const fork = path.join(mnt, 'workspace/fork');
    t.match(await store.materialize(first.id, fork, undefined, 'fork'), { files: 34, symlinks: 2, dirs: 3, bytes: first.stats.bytes });
    t.ok(await isSubvolume(fork), 'a subvolume');
    // The same snapshot built on another filesystem: the clone cannot go there, so it is copied.
    const copied = path.join(work, 'copied');
    await store.materialize(first.id, copied, undefined, 'fork');
    t.notOk(await isSubvolume(copied), 'built by copying on ext4');
    t.same(await treeOf(fork), await treeOf(copied), 'the same entries, modes, owners, times and contents');
    t.same(await treeOf(fork), original, 'as the directory was at the snapshot');
    await writeFile(path.join(fork, 'README'), 'the fork writes\n');
    t.notOk(existsSync(path.join(ws, 'README')), 'what the fork writes is its own');
    t.notOk(existsSync(path.join(clonesDir, first.id, 'README')), 'the clone is untouched');
  });

  await t.test('ten forks at once, each its own', async (t) => {
    const forks = Array.from({ length: 10 }, (_, i) => path.join(mnt, `workspace/f${i}`));
    await Promise.all(forks.map((f) => store.materialize(first.id, f, undefined, 'fork')));
    await Promise.all(forks.map((f, i) => writeFile(path.join(f, 'src/lib/m1.ts'), `fork ${i}\n`)));
    for (const [i, f] of forks.entries()) {
      t.ok(await isSubvolume(f));
      t.equal(await readFile(path.join(f, 'link-inside'), 'utf8'), `fork ${i}\n`, `fork ${i} reads its own write through its link`);
    }
  });

  await t.test('the next snapshot reuses the unchanged files: their keys carry the directory, not the clone', async (t) => {
    const second = await captureOf(store, ws);
    t.match(second.stats, { files: 34, reusedFiles: 33, changed: 0 });
    t.ok(await isSubvolume(path.join(clonesDir, second.id)));
  });

  await t.test('entries changed just before the snapshot are compared with the clone: kept when it holds them as read', async (t) => {
    // Rewritten in place, and a file added (its directory changes too), a moment before: in the clone as read.
    await writeFile(path.join(ws, 'src/lib/m5.ts'), 'edited just before\n');
    await writeFile(path.join(ws, 'src/new.ts'), 'added just before\n');
    const edited = await captureOf(store, ws);
    t.ok(existsSync(path.join(clonesDir, edited.id)), 'kept');
    const fork = path.join(mnt, 'workspace/edited-fork');
    await store.materialize(edited.id, fork, undefined, 'fork');
    t.ok(await isSubvolume(fork));
    t.equal(readFileSync(path.join(fork, 'src/new.ts'), 'utf8'), 'added just before\n');
  });

  await t.test('an agent writing all through the capture: however the fork is built, it is the snapshot', async (t) => {
    const hot = path.join(ws, 'hot.log');
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) await writeFile(hot, Buffer.alloc(64 * 1024, written++ % 251));
    })();
    await waitFor('the writer', () => written > 3);
    const during = await captureOf(store, ws);
    writing = false;
    await writer;
    const fork = path.join(mnt, 'workspace/hot-fork');
    await store.materialize(during.id, fork, undefined, 'fork');
    const copied = path.join(work, 'hot-copied');
    await store.materialize(during.id, copied, undefined, 'fork');
    t.same(
      await treeOf(fork),
      await treeOf(copied),
      `the same tree (${(await isSubvolume(fork)) ? 'a clone, which held what was read' : 'copied: the clone did not hold it'})`,
    );
  });

  await t.test('an agent that writes between the clone and the walk: the clone is compared, found different, and not kept', async (t) => {
    // The launcher's snapshot, then a write into the live directory at once: what an agent does in that instant.
    const meddles: Array<[string, (dir: string) => void]> = [
      ['a file rewritten', (dir) => writeFileSync(path.join(dir, 'src/lib/m7.ts'), 'written after the clone\n')],
      ['a file added', (dir) => writeFileSync(path.join(dir, 'src/added-after.ts'), 'added after the clone\n')],
      ['a file removed', (dir) => rmSync(path.join(dir, 'src/lib/m8.ts'))],
      [
        'a link retargeted',
        (dir) => {
          rmSync(path.join(dir, 'link-inside'));
          symlinkSync('src/lib/m9.ts', path.join(dir, 'link-inside'));
        },
      ],
    ];
    for (const [i, [what, meddle]] of meddles.entries()) {
      const dir = path.join(mnt, `workspace/meddled-${i}`);
      const storeAt = path.join(mnt, `state/meddled-${i}`);
      await makeAgentDirectory(dir);
      await fill(dir);
      class Meddling extends Subvolumes {
        override async snapshot(src: string | { fd: number }, dst: string, options: { readonly: boolean }): Promise<void> {
          await super.snapshot(src, dst, options);
          if (options.readonly) meddle(dir);
        }
      }
      const meddled = new SnapshotStore({ dir: storeAt, logger: pino({ level: 'silent' }), durable: false, subvolumes: new Meddling() });
      await meddled.open();
      try {
        const s = await captureOf(meddled, dir, 'agt_meddled');
        t.notOk(existsSync(path.join(storeAt, 'clones', s.id)), `${what}: no clone kept`);
        const fork = path.join(mnt, `workspace/meddled-fork-${i}`);
        await meddled.materialize(s.id, fork, undefined, 'fork');
        t.notOk(await isSubvolume(fork), `${what}: built by copying`);
        t.same(await treeOf(fork), await treeOf(dir), `${what}: the fork is the directory as the walk read it`);
      } finally {
        await meddled.close();
      }
    }
  });

  await t.test('a clone that would differ from a build is not kept: a setuid bit, a FIFO, another owner', async (t) => {
    const cases: Array<[string, (dir: string) => Promise<void>]> = [
      ['setuid', (dir) => chmod(path.join(dir, 'run.sh'), 0o4755)],
      ['fifo', async (dir) => void execFileSync('mkfifo', [path.join(dir, 'pipe')])],
    ];
    if (process.getuid?.() === 0) cases.push(['owner', async (dir) => execFileSync('chown', ['4321:4321', path.join(dir, 'empty')]) && undefined]);
    for (const [what, spoil] of cases) {
      const dir = path.join(mnt, `workspace/${what}`);
      await makeAgentDirectory(dir);
      await fill(dir);
      await spoil(dir);
      const s = await captureOf(store, dir, `agt_${what}`);
      t.notOk(existsSync(path.join(clonesDir, s.id)), `${what}: no clone kept`);
      const fork = path.join(mnt, `workspace/${what}-fork`);
      await store.materialize(s.id, fork, undefined, 'fork');
      t.notOk(await isSubvolume(fork), `${what}: the fork is built by copying`);
      if (what === 'setuid') t.equal((await lstat(path.join(fork, 'run.sh'))).mode & 0o7777, 0o755, 'the setuid bit does not come back');
      if (what === 'fifo') t.notOk(existsSync(path.join(fork, 'pipe')), 'no FIFO comes back');
    }
  });

  await t.test(
    'a root box gives a fork of a clone to the new agent: every entry chowned, modes and times kept',
    { skip: process.getuid?.() !== 0 && 'needs root' },
    async (t) => {
      const fork = path.join(mnt, 'workspace/other-owner');
      await store.materialize(first.id, fork, { uid: 2345, gid: 2346 }, 'fork');
      t.ok(await isSubvolume(fork), 'still a clone');
      const tree = await treeOf(fork);
      const expected = Object.fromEntries(
        Object.entries(original).map(([k, v]) => [k, v.startsWith('link:') ? v.replace(/:\d+$/, ':2345') : v.replace(/^(\w+:\d+:)\d+:\d+:/, '$12345:2346:')]),
      );
      t.same(tree, expected);
      t.match(await lstat(fork), { uid: 2345, gid: 2346, mode: (await lstat(ws)).mode });
    },
  );

  await t.test('a delete removes the clone; its forks stay whole; a clone a kill left without a summary goes at the next open', async (t) => {
    const forkBefore = await treeOf(path.join(mnt, 'workspace/f3'));
    const cloned = store.list().filter((s) => s.id !== first.id && existsSync(path.join(clonesDir, s.id)));
    t.ok(cloned.length >= 2, 'other snapshots have clones');
    await store.delete(first.id);
    t.notOk(existsSync(path.join(clonesDir, first.id)), 'clone removed');
    t.same(await treeOf(path.join(mnt, 'workspace/f3')), forkBefore, 'a fork made from it is its own');
    const orphan = path.join(clonesDir, 'snp_leftoverleftover');
    await new Subvolumes().snapshot(ws, orphan, { readonly: true });
    const reopened = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }), durable: false });
    await reopened.open();
    await waitFor('the orphan clone to go', () => !existsSync(orphan));
    t.ok(
      cloned.every((s) => existsSync(path.join(clonesDir, s.id))),
      "the other snapshots' clones stay",
    );
    await reopened.close();
  });

  await t.test("an agent's disk is measured into subvolumes below its directory (their own device numbers)", async (t) => {
    const dir = path.join(mnt, 'workspace/measured');
    await makeAgentDirectory(dir);
    await new Subvolumes().create(path.join(dir, 'inner'));
    writeFileSync(path.join(dir, 'inner/blob'), Buffer.alloc(2 * 1024 * 1024, 1));
    const found = await walkDisk([dir]);
    t.ok(found.bytes >= 2 * 1024 * 1024, `${found.bytes} bytes: the file in the nested subvolume counts`);
    t.equal(found.otherDevices, 0);
  });

  await t.test('names that are not UTF-8, made just before the snapshot: compared with the clone by their bytes, and the clone kept', async (t) => {
    // odd-\xff/f-\xc3 and a link odd-\xff/l -> a\xfe: suspects (changed within the racy window), so the check reads them in the clone.
    const odd = Buffer.concat([Buffer.from(path.join(ws, 'odd-')), Buffer.of(0xff)]);
    mkdirSync(odd);
    writeFileSync(Buffer.concat([odd, Buffer.from('/f-'), Buffer.of(0xc3)]), 'odd\n');
    symlinkSync(Buffer.of(0x61, 0xfe), Buffer.concat([odd, Buffer.from('/l')]));
    const made = await captureOf(store, ws);
    t.match(made.stats, { skipped: 0, changed: 0 }, 'nothing left out');
    t.ok(existsSync(path.join(clonesDir, made.id)), 'the clone is kept: it holds each odd name as read');
    const fork = path.join(mnt, 'workspace/odd-fork');
    await store.materialize(made.id, fork, undefined, 'fork');
    t.ok(await isSubvolume(fork), 'the fork is the clone');
    const copied = path.join(work, 'odd-copied');
    await store.materialize(made.id, copied, undefined, 'fork');
    t.ok(tarOf(fork).equals(tarOf(copied)), 'the clone and a copying build are the same tree, odd names and all');
    t.equal(readFileSync(Buffer.concat([Buffer.from(path.join(copied, 'odd-')), Buffer.of(0xff, 0x2f, 0x66, 0x2d, 0xc3)]), 'utf8'), 'odd\n');
  });

  await t.test(
    'without privilege: the launcher makes, snapshots and (refused a destroy) the box removes a subvolume entry by entry',
    { skip: process.getuid?.() !== 0 && 'needs root to switch to another uid' },
    async (t) => {
      // uid 1000 must reach the filesystem: traversal only (mkdtemp made the directory 0700).
      chmodSync(work, 0o711);
      const home = path.join(mnt, 'unprivileged');
      mkdirSync(home);
      execFileSync('chown', ['1000:1000', home]);
      const launcher = path.join(mnt, 'agentbox-sandbox');
      copyFileSync(installedLauncher(), launcher);
      chmodSync(launcher, 0o755);
      const wrapper = path.join(mnt, 'as-1000');
      writeFileSync(wrapper, `#!/bin/sh\nexec ${asRoot(['setpriv', '--reuid', '1000', '--regid', '1000', '--clear-groups']).join(' ')} ${launcher} "$@"\n`, {
        mode: 0o755,
      });
      const ops = new Subvolumes(wrapper);
      const dir = path.join(home, 'ws');
      await ops.create(dir);
      execFileSync('chown', ['-R', '1000:1000', dir]);
      writeFileSync(path.join(dir, 'a'), 'a');
      execFileSync('chown', ['1000:1000', path.join(dir, 'a')]);
      await ops.snapshot(dir, path.join(home, 'ro'), { readonly: true });
      await ops.snapshot(path.join(home, 'ro'), path.join(home, 'rw'), { readonly: false });
      t.equal(readFileSync(path.join(home, 'rw/a'), 'utf8'), 'a');
      await ops.remove(path.join(home, 'ro'));
      t.notOk(existsSync(path.join(home, 'ro')), 'the read-only clone is gone');
      await t.rejects(ops.snapshot('/tmp', path.join(home, 'x'), { readonly: false }), {
        message: /cannot snapshot \/tmp: (Invalid cross-device link|Inappropriate ioctl)/,
      });
    },
  );
});

t.test('a real box on btrfs: agents in subvolumes, forks started from a clone, restore in place', { skip }, async (t) => {
  const { mnt, unmount } = mountImage(work, 'box-btrfs', 1024, ['mkfs.btrfs', '-q']);
  t.teardown(unmount);
  const root = await rootAt(path.join(mnt, 'box'), async () => removeClones(path.join(root.paths.stateDir, 'snapshots')));
  const { paths } = root;
  const box = await startTestServer({
    toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n',
    root,
  });
  t.teardown(() => box.close());
  type Agent = { id: string; cwd: string; state: string };
  const spawn = async (body: Record<string, unknown>): Promise<Agent> => {
    const res = await box.api('/v1/agents', { body });
    if (res.status !== 201) throw new Error(`spawn failed: ${res.status} ${JSON.stringify(res.json)}`);
    return res.json['agent'] as Agent;
  };
  const alpha = await spawn({ name: 'alpha', command: '/bin/sh', args: ['-c', 'echo made > made.txt; exec sleep 600'] });
  const alphaDir = path.join(paths.workspaceDir, alpha.cwd);
  t.ok(await isSubvolume(alphaDir), "the agent's directory is a subvolume");
  await waitFor('the agent to write', () => existsSync(path.join(alphaDir, 'made.txt')));
  await fill(alphaDir);
  // As if the agent had made them: a root box gives each agent a uid of its own, and a clone is kept only for one owner.
  const { uid, gid } = await lstat(alphaDir);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${uid}:${gid}`, alphaDir]);
  const shot = await box.api(`/v1/agents/${alpha.id}/snapshots`, { body: {} });
  t.equal(shot.status, 201, JSON.stringify(shot.json));
  const snapshotId = (shot.json['snapshot'] as { id: string }).id;
  t.ok(await isSubvolume(path.join(paths.stateDir, 'snapshots/clones', snapshotId)), 'the snapshot has a clone');

  const forks = await Promise.all(
    Array.from({ length: 5 }, (_, i) => spawn({ name: `fork${i}`, command: '/bin/cat', args: ['made.txt', 'src/lib/m2.ts'], fromSnapshot: snapshotId })),
  );
  for (const f of forks) {
    t.ok(await isSubvolume(path.join(paths.workspaceDir, f.cwd)), `${f.cwd} is a clone`);
    const out = await waitFor(`${f.cwd}'s output`, async () => {
      const res = await box.api(`/v1/agents/${f.id}/output`);
      const text = JSON.stringify(res.json);
      return text.includes('export const v2') ? text : undefined;
    }).catch(async (err: Error) => {
      // What the fork did instead: its record (state, exit) and its output so far.
      const seen = [await box.api(`/v1/agents/${f.id}`), await box.api(`/v1/agents/${f.id}/output`)].map((r) => JSON.stringify(r.json));
      throw new Error(`${err.message}; the agent: ${seen[0]}; its output: ${seen[1]}`);
    });
    t.match(out, /made/);
  }

  // An agent may not change subvolumes: its own directory made read-only could not be replaced or removed by the box.
  const probe = [
    'import errno, fcntl, os, struct',
    'fd = os.open(".", os.O_RDONLY)',
    'for name, req, arg in (("SETFLAGS", 0x4008941A, bytearray(struct.pack("Q", 2))), ("SUBVOL_CREATE", 0x5000940E, bytearray(b"inner".ljust(4096, b"\\0")))):',
    '    try:',
    '        fcntl.ioctl(fd, req, arg)',
    '        print(name, "allowed", flush=True)',
    '    except OSError as e:',
    '        print(name, "refused", errno.errorcode[e.errno], flush=True)',
    'print("owner", os.stat(".").st_uid == os.getuid(), flush=True)',
  ].join('\n');
  const prober = await spawn({ name: 'prober', command: 'python3', args: ['-c', probe] });
  const said = await waitFor('the probe', async () => {
    const text = JSON.stringify((await box.api(`/v1/agents/${prober.id}/output`)).json);
    return text.includes('owner') ? text : undefined;
  });
  t.match(said, /SETFLAGS refused EPERM.*SUBVOL_CREATE refused EPERM.*owner True/, 'refused to the owner of the subvolume');
  t.ok(await isSubvolume(path.join(paths.workspaceDir, prober.cwd)));
  writeFileSync(path.join(paths.workspaceDir, prober.cwd, 'still-writable'), 'yes');

  // Restore in place: the agent ends, its directory is swapped for a clone of the snapshot.
  await box.api(`/v1/agents/${alpha.id}?graceMs=0`, { method: 'DELETE' });
  await waitFor('alpha to end', async () => ((await box.api(`/v1/agents/${alpha.id}`)).json['agent'] as Agent).state !== 'running');
  await writeFile(path.join(alphaDir, 'made.txt'), 'overwritten\n');
  await rename(path.join(alphaDir, 'big.bin'), path.join(alphaDir, 'moved.bin'));
  const restored = await box.api(`/v1/agents/${alpha.id}/restore`, { body: { snapshot: snapshotId } });
  t.match(restored, { status: 200, json: { restored: snapshotId, cloned: true } }, JSON.stringify(restored.json));
  t.ok(await isSubvolume(alphaDir), 'the restored directory is a clone');
  t.equal(readFileSync(path.join(alphaDir, 'made.txt'), 'utf8'), 'made\n');
  t.ok(existsSync(path.join(alphaDir, 'big.bin')) && !existsSync(path.join(alphaDir, 'moved.bin')), 'as at the snapshot');

  await t.test('the CLI says which snapshots keep a clone', async (t) => {
    const target = ['--url', box.server.apiUrl, '--root', root.dir];
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTBOX_')));
    const made = await runAgentboxAsync(['snapshot', 'create', ...target, 'alpha'], { env });
    t.equal(made.code, 0, made.stderr);
    t.match(made.stdout, /^snp_\S+ {2}\d+ files, .* in \d+ ms, kept a clone: forks of it are clones$/m);
    const ls = await runAgentboxAsync(['snapshot', 'ls', ...target, '--agent', 'alpha'], { env });
    t.match(ls.stdout, new RegExp(`^${made.stdout.split(' ')[0]} .* yes *$`, 'm'), ls.stdout);
  });

  await t.test("an agent's own clones are charged to its disk budget: the same bytes rewritten cannot pin blocks without end", async (t) => {
    // Each rewrite of the same 1 MiB adds nothing to the store, yet a clone taken before it keeps the old blocks.
    const hoarder = await spawn({ name: 'hoarder', command: '/bin/sh', args: ['-c', 'exec sleep 600'], limits: { disk: '3584k' } });
    const dir = path.join(paths.workspaceDir, hoarder.cwd);
    const token = /(?:^|\0)AGENTBOX_TOKEN=([^\0]+)/.exec(readFileSync(`/proc/${(hoarder as Agent & { pid: number }).pid}/environ`, 'utf8'))?.[1] ?? '';
    const { uid, gid } = await lstat(dir);
    const content = createHash('sha512').update('same bytes').digest().toString('hex').repeat(8192);
    const rewrite = async (name: string, data: string) => {
      await writeFile(path.join(dir, name), data);
      execFileSync('chown', [`${uid}:${gid}`, path.join(dir, name)]);
    };
    type Shot = { id: string; clone: boolean; stats: { addedBytes: number; bytes: number } };
    const shots: Shot[] = [];
    for (let round = 0; round < 4; round++) {
      await rewrite('same.bin', content);
      const res = await box.api(`/v1/agents/${hoarder.id}/snapshots`, { body: {}, auth: token });
      t.equal(res.status, 201, `round ${round}: ${JSON.stringify(res.json)}`);
      shots.push(res.json['snapshot'] as Shot);
    }
    t.same(
      shots.map((s) => s.clone),
      [true, true, false, false],
      'the first stores 1 MiB and keeps a clone (2 MiB charged), the second a clone (3 MiB), then no clone fits the 3.5 MiB budget',
    );
    t.same(
      shots.map((s) => s.stats.addedBytes),
      [1024 * 1024, 0, 0, 0],
      'the rewrites added nothing to the store',
    );
    const kept = await readdir(path.join(paths.stateDir, 'snapshots/clones'));
    t.same(
      shots.filter((s) => kept.includes(s.id)).map((s) => s.id),
      shots.slice(0, 2).map((s) => s.id),
      'only the two clones charged are on the volume',
    );
    const listed = (await box.api(`/v1/snapshots?agent=${hoarder.id}`)).json['snapshots'] as Shot[];
    t.same(
      listed.map((s) => s.clone),
      [true, true, false, false],
      'the listing says which keep a clone',
    );
    await rewrite('fresh.bin', content.toUpperCase());
    t.equal((await box.api(`/v1/agents/${hoarder.id}/snapshots`, { body: {}, auth: token })).status, 201, 'fresh bytes: 1 MiB more stored, 4 MiB charged');
    t.match(
      await box.api(`/v1/agents/${hoarder.id}/snapshots`, { body: {}, auth: token }),
      { status: 409, json: { error: 'ABX_ERR_CONFLICT', message: /hoarder's snapshots already store \d+ bytes of their own/ } },
      'then its budget is spent',
    );
    await box.api(`/v1/agents/${hoarder.id}?graceMs=0`, { method: 'DELETE' });
  });
});

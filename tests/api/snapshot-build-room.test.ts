// A real box on a small ext4 volume (loop-mounted): a fork or restore of a snapshot that would write more than the volume may
// still take above resources.min_free_disk is refused with 507 before it writes a byte (an agent's hard links, stored once,
// would each be built as a file), the box stays ready, and a fork that fits keeps a sparse file sparse.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdtempSync,
  openSync,
  closeSync,
  readdirSync,
  rmSync,
  statSync,
  statfsSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { canRunAsRoot, mountImage } from '../helpers/as-root.js';
import { waitFor } from '../helpers/wait.js';
import { rootAt, startTestServer } from './support/harness.js';

const MiB = 1024 * 1024;
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-build-room-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
// Searchable by the agents' own uids (a root box): the box's root is below it.
chmodSync(work, 0o711);
const hasMkfs = ['/usr/sbin/mkfs.ext4', '/sbin/mkfs.ext4'].some((p) => existsSync(p));
const skip = !canRunAsRoot() ? 'loop mounts need root or passwordless sudo' : !hasMkfs ? 'mkfs.ext4 is missing (apt-get install e2fsprogs)' : false;

t.test('forks and restores that would not fit the workspace volume are refused before they write', { skip }, async (t) => {
  // No blocks reserved for root: the box sees the whole volume.
  const { mnt, unmount } = mountImage(work, 'small-ext4', 256, ['mkfs.ext4', '-q', '-F', '-m', '0']);
  t.teardown(unmount);
  const root = await rootAt(path.join(mnt, 'box'));
  const { paths } = root;
  const box = await startTestServer({
    toml: '[resources]\nmin_free_disk = "16m"\n\n[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "local-jsonl"\norchestrator = "local-procmgr"\n',
    root,
  });
  t.teardown(() => box.close());
  const free = () => {
    const s = statfsSync(paths.workspaceDir);
    return s.bavail * s.bsize;
  };

  const spawned = await box.api('/v1/agents', { body: { name: 'hoarder', command: '/bin/sh', args: ['-c', 'exec sleep 600'] } });
  t.equal(spawned.status, 201, JSON.stringify(spawned.json));
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  const dir = path.join(paths.workspaceDir, agent.cwd);
  // 16 MiB of data under 20 names (one file, 19 hard links), and a 64 MiB file with nothing written: 16 MiB on the volume.
  writeFileSync(path.join(dir, 'data.bin'), randomBytes(16 * MiB));
  for (let i = 1; i < 20; i++) linkSync(path.join(dir, 'data.bin'), path.join(dir, `link-${i}.bin`));
  const fd = openSync(path.join(dir, 'sparse.img'), 'w');
  writeSync(fd, Buffer.alloc(1), 0, 1, 64 * MiB - 1);
  closeSync(fd);
  // As if the agent had made them: a root box gives it a uid of its own, and other owners' hard-linked files are left out.
  const { uid, gid } = statSync(dir);
  if (process.getuid?.() === 0) execFileSync('chown', ['-R', `${uid}:${gid}`, dir]);
  const big = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  t.equal(big.status, 201, JSON.stringify(big.json));
  const bigStats = (big.json['snapshot'] as { id: string; stats: { bytes: number; holeBytes: number; storedBytes: number } }).stats;
  t.match(bigStats, { bytes: 20 * 16 * MiB + 64 * MiB, holeBytes: 64 * MiB }, 'its files hold 384 MiB, 64 of them holes');
  t.ok(bigStats.storedBytes <= 17 * MiB, `stored once: ${bigStats.storedBytes} bytes`);
  const bigId = (big.json['snapshot'] as { id: string }).id;

  const before = free();
  t.ok(before < 320 * MiB, `the volume has ${before} bytes free: less than the 320 MiB a copy of the links would write`);
  const fork = await box.api('/v1/agents', { body: { name: 'copy', command: '/bin/sh', args: ['-c', 'exec sleep 600'], fromSnapshot: bigId } });
  t.match(
    fork,
    {
      status: 507,
      json: {
        error: 'ABX_ERR_DISK_LOW',
        message: /snapshot snp_\S+ would write about 32\d\.\d MiB to the workspace .* above resources\.min_free_disk: nothing was written/,
      },
    },
    'the fork is refused, naming what it would write and the room there is',
  );
  t.same(
    readdirSync(paths.workspaceDir).filter((n) => n.startsWith('copy') || n.startsWith('.abx-')),
    [],
    'no fork directory, nothing half-built',
  );
  t.ok(free() >= before - MiB, 'the free space is as it was');
  t.equal((await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' })).status, 200);
  await waitFor('the agent to end', async () => ((await box.api(`/v1/agents/${agent.id}`)).json['agent'] as { state: string }).state !== 'running');
  t.match(
    await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: bigId } }),
    { status: 507, json: { error: 'ABX_ERR_DISK_LOW' } },
    'so is a restore of it in place',
  );
  t.ok(statSync(path.join(dir, 'link-19.bin')).isFile(), "the agent's directory is as it was");
  const ready = await box.api('/ready');
  // This harness writes no bootstrap seal, so /ready names that; what matters is that the disk is not among the reasons.
  t.notOk(
    (ready.json['missing'] as string[]).some((m) => m.startsWith('disk:')),
    `the workspace volume is not low: ${JSON.stringify(ready.json)}`,
  );

  // Five names left: 80 MiB to write, which fits; the sparse file is still a hole in the fork.
  for (let i = 5; i < 20; i++) unlinkSync(path.join(dir, `link-${i}.bin`));
  const small = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  t.equal(small.status, 201);
  const ok = await box.api('/v1/agents', {
    body: { name: 'copy', command: '/bin/sh', args: ['-c', 'exec sleep 600'], fromSnapshot: (small.json['snapshot'] as { id: string }).id },
  });
  t.equal(ok.status, 201, JSON.stringify(ok.json));
  const copy = ok.json['agent'] as { id: string; cwd: string };
  const sparse = statSync(path.join(paths.workspaceDir, copy.cwd, 'sparse.img'));
  t.equal(sparse.size, 64 * MiB);
  t.ok(sparse.blocks * 512 <= MiB, `the fork's sparse file takes ${sparse.blocks * 512} bytes, not 64 MiB`);
  await box.api(`/v1/agents/${copy.id}?graceMs=0`, { method: 'DELETE' });
});

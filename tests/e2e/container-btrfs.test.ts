// The hardened container (uid 1000, no capabilities, the image's seccomp) with its workspace and
// state volume on one btrfs filesystem, as an operator who wants cheap forks sets it up (the
// generated compose file unchanged, an override file binding the state volume there): each
// agent's directory is a subvolume made by the launcher, a snapshot keeps a clone, a fork and a
// restore are clones of it (the API says `cloned`), and deleting the snapshot removes its clone
// although the kernel refuses an unprivileged subvolume destroy there.
import t from 'tap';
import { chownSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { boxFacts } from '../../management-api/src/box-facts.js';
import { startPrivateEngine } from '../../scripts/cli/image/private-engine.js';
import { canRunAsRoot, mountImage } from '../helpers/as-root.js';
import { waitFor } from '../helpers/wait.js';
import { e2eSkipped, prepareBox, removeBox, waitReady } from './support/compose-box.js';

const hasMkfs = ['/usr/sbin/mkfs.btrfs', '/sbin/mkfs.btrfs', '/usr/bin/mkfs.btrfs'].some((p) => existsSync(p));
const skip = e2eSkipped
  ? 'AGENTBOX_E2E=skip'
  : !canRunAsRoot()
    ? 'loop mounts need root or passwordless sudo'
    : !hasMkfs && 'mkfs.btrfs is missing (apt-get install btrfs-progs; npm test installs it)';

const manifest = (p: { api: number; metrics: number }) => `[agentbox]
name = "btrfs-box"

[api]
port = ${p.api}

[observability]
metrics_port = ${p.metrics}
`;

type Agent = { id: string; cwd: string; state: string };

t.test('a box container on btrfs: agents in subvolumes, snapshots with clones, forks and restores that are clones', { skip, timeout: 600_000 }, async (t) => {
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-e2e-btrfs-'));
  // The box's workspace and its state on one btrfs (a clone cannot cross filesystems): the
  // workspace directory there, and the state volume bound to a directory there by an override
  // file, as docs/user/files-and-snapshots.md tells an operator. The engine itself stays where
  // the other container tests keep theirs.
  const { mnt, unmount } = mountImage(work, 'btrfs', 2048, ['mkfs.btrfs', '-q']);
  const state = path.join(mnt, 'state');
  mkdirSync(state);
  chownSync(state, boxFacts.image.uid, boxFacts.image.gid);
  const engine = await startPrivateEngine();
  // One teardown, in order: the box, its engine, then the filesystem they were on.
  let box: Awaited<ReturnType<typeof prepareBox>> | undefined;
  t.teardown(async () => {
    if (box) removeBox(box);
    await engine.stop();
    unmount();
    rmSync(work, { recursive: true, force: true });
  });
  box = await prepareBox(engine, manifest, {
    parentDir: mnt,
    override: `volumes:\n  agentbox-state:\n    driver: local\n    driver_opts:\n      type: none\n      o: bind\n      device: ${JSON.stringify(state)}\n`,
  });
  const up = box.compose('up', '-d');
  t.equal(up.status, 0, `docker-compose up -d: ${up.stderr}`);
  await waitReady(box).catch((err: Error) => {
    throw new Error(`${err.message}\n${box?.logs().slice(-4000)}`);
  });
  const ready = box;
  t.equal(ready.exec('stat', '-f', '-c', '%T', '/workspace', '/var/lib/agentbox').trim(), 'btrfs\nbtrfs', 'workspace and state on btrfs');

  const spawn = async (body: Record<string, unknown>): Promise<Agent> => {
    const r = await ready.call<{ agent: Agent }>('POST', '/v1/agents', body);
    if (r.status !== 201) throw new Error(`spawn: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.agent;
  };
  const output = (id: string, wanted: string) =>
    waitFor(`${id}'s output`, async () => {
      const text = JSON.stringify((await ready.call<unknown>('GET', `/v1/agents/${id}/output`)).body);
      return text.includes(wanted) ? text : undefined;
    });
  /** The inode number of a directory in the container: 256 is a subvolume's root. */
  const inode = (dir: string) => ready.exec('stat', '-c', '%i %U', dir).trim();

  const alpha = await spawn({
    name: 'alpha',
    command: '/bin/sh',
    args: ['-c', 'echo made > made.txt; mkdir src; echo two > src/f2; echo written; exec sleep 600'],
  });
  await output(alpha.id, 'written');
  t.equal(inode(`/workspace/${alpha.cwd}`), '256 agentbox', "the agent's directory is a subvolume, the box's user's");

  const shot = await ready.call<{ snapshot: { id: string } }>('POST', `/v1/agents/${alpha.id}/snapshots`, {});
  t.equal(shot.status, 201, JSON.stringify(shot.body));
  const id = shot.body.snapshot.id;
  t.equal(inode(`/var/lib/agentbox/snapshots/clones/${id}`), '256 agentbox', 'the snapshot keeps a clone');

  const forks = await Promise.all([0, 1, 2].map((i) => spawn({ name: `fork${i}`, command: '/bin/cat', args: ['made.txt', 'src/f2'], fromSnapshot: id })));
  for (const f of forks) {
    t.match(await output(f.id, 'two'), /made/, `${f.cwd} starts on the snapshot's files`);
    t.equal(inode(`/workspace/${f.cwd}`), '256 agentbox', `${f.cwd} is a clone`);
  }
  t.match(ready.logs(), /"event":"SnapshotForked"[^\n]*"cloned":true/, 'the fork log says cloned');

  t.equal((await ready.call('DELETE', `/v1/agents/${alpha.id}?graceMs=0`)).status < 300, true, 'alpha stopped');
  await waitFor('alpha to end', async () => (await ready.call<{ agent: Agent }>('GET', `/v1/agents/${alpha.id}`)).body.agent.state !== 'running');
  ready.exec('sh', '-c', `echo overwritten > /workspace/${alpha.cwd}/made.txt`);
  const restored = await ready.call<Record<string, unknown>>('POST', `/v1/agents/${alpha.id}/restore`, { snapshot: id });
  t.match(restored, { status: 200, body: { restored: id, cloned: true } }, JSON.stringify(restored.body));
  t.equal(ready.exec('cat', `/workspace/${alpha.cwd}/made.txt`), 'made\n', 'restored as at the snapshot');

  const deleted = await ready.call<Record<string, unknown>>('DELETE', `/v1/snapshots/${id}`);
  t.equal(deleted.status, 200, JSON.stringify(deleted.body));
  t.equal(ready.exec('ls', '-A', '/var/lib/agentbox/snapshots/clones'), '', 'its clone is gone with it');
});

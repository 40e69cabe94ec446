// Forks and restores that copy, on a real store: a sparse file comes back sparse (whole chunks of zeros left as holes), and a
// build that would not fit what the volume may still take is refused before it writes anything, counting the builds under way
// and every hard link as a file of its own.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildBytes } from '../../management-api/src/snapshots/build-room.js';
import { CHUNK_BYTES, type SnapshotSummary, ZERO_CHUNK_SHA256 } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const MiB = 1024 * 1024;
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-build-room-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const store = new SnapshotStore({ dir: path.join(work, 'store'), logger: pino({ level: 'silent' }) });
await store.open();
t.teardown(() => store.close());

async function snap(dir: string): Promise<SnapshotSummary> {
  const fd = await open(dir, DIR_FLAGS);
  try {
    return await store.create({ rootFd: fd.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_room', name: 'room', cwd: path.basename(dir) } });
  } finally {
    await fd.close();
  }
}

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const allocated = (file: string) => statSync(file).blocks * 512;

t.test('the hash of a whole chunk of zeros is the one the build leaves as a hole', async (t) => {
  t.equal(createHash('sha256').update(Buffer.alloc(CHUNK_BYTES)).digest('hex'), ZERO_CHUNK_SHA256);
});

t.test('a sparse file comes back sparse; data between holes and a zero tail come back as they were', async (t) => {
  const dir = path.join(work, 'sparse');
  mkdirSync(dir);
  // 32 MiB with nothing written: all holes.
  const empty = path.join(dir, 'empty.img');
  const fd = openSync(empty, 'w');
  writeSync(fd, Buffer.alloc(1), 0, 1, 32 * MiB - 1);
  closeSync(fd);
  // Data, a whole chunk of zeros written out, data, then 100 zero bytes past the last chunk boundary.
  const mixed = path.join(dir, 'mixed.bin');
  writeFileSync(mixed, Buffer.concat([randomBytes(MiB), Buffer.alloc(MiB), randomBytes(MiB), Buffer.alloc(100)]));
  const s = await snap(dir);
  t.equal(
    s.stats.holeBytes,
    33 * MiB,
    "the snapshot counts the whole chunks of zeros: the sparse file's 32 (its last byte written is a 0 too) and the mixed file's one",
  );
  const target = path.join(work, 'sparse-fork');
  await store.materialize(s.id, target, undefined, 'fork', async () => 1024 * MiB);
  for (const name of ['empty.img', 'mixed.bin']) {
    t.equal(statSync(path.join(target, name)).size, statSync(path.join(dir, name)).size, `${name}: the same size`);
    t.equal(sha(path.join(target, name)), sha(path.join(dir, name)), `${name}: the same bytes`);
  }
  t.ok(allocated(path.join(target, 'empty.img')) <= MiB, `the sparse file takes ${allocated(path.join(target, 'empty.img'))} bytes, not 32 MiB`);
  t.ok(
    allocated(path.join(target, 'mixed.bin')) < 3 * MiB,
    `the written zero chunk is a hole in the fork (${allocated(path.join(target, 'mixed.bin'))} bytes)`,
  );
});

t.test('a build that would not fit is refused before it writes anything', async (t) => {
  const dir = path.join(work, 'linked');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'data.bin'), randomBytes(2 * MiB));
  for (let i = 0; i < 20; i++) linkSync(path.join(dir, 'data.bin'), path.join(dir, `link-${i}.bin`));
  const s = await snap(dir);
  t.equal(s.stats.storedBytes, 2 * MiB, 'stored once');
  t.ok(buildBytes(s) >= 42 * MiB, `built, each link is a file of its own: ${buildBytes(s)} bytes`);
  const target = path.join(work, 'linked-fork');
  await t.rejects(
    store.materialize(s.id, target, undefined, 'fork', async () => 30 * MiB),
    {
      code: 'ABX_ERR_DISK_LOW',
      message: /would write about 42\.\d MiB to the workspace .*hard links each a file.*has 30\.0 MiB above resources\.min_free_disk: nothing was written/,
    },
  );
  t.notOk(existsSync(target), 'nothing was made');
  await store.materialize(s.id, target, undefined, 'fork', async () => 64 * MiB);
  t.equal(sha(path.join(target, 'link-7.bin')), sha(path.join(dir, 'data.bin')), 'with room, it is built');
});

t.test('builds at once are admitted against what the others hold', async (t) => {
  const dir = path.join(work, 'pair');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'data.bin'), randomBytes(8 * MiB));
  const s = await snap(dir);
  const room = async () => Math.floor(1.5 * buildBytes(s));
  const outcomes = await Promise.allSettled([0, 1, 2].map((i) => store.materialize(s.id, path.join(work, `pair-${i}`), undefined, 'fork', room)));
  t.same(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'rejected'],
    'room for one and a half: the first is built, the others refused',
  );
  t.match((outcomes[1] as PromiseRejectedResult).reason, { code: 'ABX_ERR_DISK_LOW', message: /MiB of it held by builds under way/ });
  t.notOk(existsSync(path.join(work, 'pair-1')) || existsSync(path.join(work, 'pair-2')), 'the refused ones made nothing');
  await store.materialize(s.id, path.join(work, 'pair-3'), undefined, 'fork', room);
  t.pass('once the first has ended, what it held is free again');
});

// Forks and restores that copy, on a real store: a sparse file comes back sparse (whole chunks of zeros left as holes), and a
// build that would not fit what the volume may still take is refused before it writes anything, counting the builds under way
// and every hard link as a file of its own.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import {
  type Dirent,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { BuildRoom, buildBytes } from '../../management-api/src/snapshots/build-room.js';
import { materialize } from '../../management-api/src/snapshots/materialize.js';
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

/** Blocks allocated under `dir` (0 when it is not there, or not yet). */
function allocatedUnder(dir: string): number {
  let sum = 0;
  let names: Dirent[];
  try {
    names = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const d of names) {
    const p = path.join(dir, d.name);
    sum += d.isDirectory() ? allocatedUnder(p) : (lstatSync(p, { throwIfNoEntry: false })?.blocks ?? 0) * 512;
  }
  return sum;
}

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
  // Room for one build and a half, less what the builds have written so far (as a statfs would see it: the volume fills as
  // they write, and the first's hold shrinks by as much).
  const targets = [0, 1, 2].map((i) => path.join(work, `pair-${i}`));
  const room = async () => Math.floor(1.5 * buildBytes(s)) - targets.reduce((sum, dir) => sum + allocatedUnder(dir), 0);
  // The three statfs answer together, so all three are checked while none has ended (which is checked first is up to the event loop).
  let arrive!: () => void;
  const allAsked = new Promise<void>((resolve) => (arrive = resolve));
  let asked = 0;
  const roomTogether = async () => {
    if (++asked === targets.length) arrive();
    await allAsked;
    return room();
  };
  const outcomes = await Promise.allSettled(targets.map((target) => store.materialize(s.id, target, undefined, 'fork', roomTogether)));
  const built = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
  t.equal(built.length, 1, `room for one and a half: one is built, the others refused (built: ${built.join(', ')})`);
  for (const [i, o] of outcomes.entries()) {
    if (o.status === 'fulfilled') continue;
    t.match(o.reason, { code: 'ABX_ERR_DISK_LOW', message: /MiB of it still to be written by builds under way/ }, `pair-${i}: refused for the build under way`);
    t.notOk(existsSync(targets[i]!), `pair-${i}: the refused build made nothing`);
  }
  // The first fork's files stay on the volume; removed (its agent gone), the volume has its room for one and a half again.
  rmSync(targets[built[0]!]!, { recursive: true });
  await store.materialize(s.id, path.join(work, 'pair-3'), undefined, 'fork', room);
  t.pass('once the first has ended, what it held is free again');
});

t.test("a build's hold shrinks as it writes: what it has written is not counted twice", async (t) => {
  const room = new BuildRoom();
  const s = { id: 'snp_progress', stats: { bytes: 10 * MiB, holeBytes: 0, files: 1, dirs: 0, symlinks: 0 } } as SnapshotSummary;
  const need = buildBytes(s);
  // The volume has room for two; the first build writes half of its bytes, and the free space goes down by as much.
  let free = 2 * need;
  let wrote!: () => void;
  const halfway = new Promise<void>((resolve) => (wrote = resolve));
  let finish!: () => void;
  const first = room.run(
    s,
    async () => free,
    async (counter) => {
      Atomics.add(new BigInt64Array(counter), 0, BigInt(need / 2));
      free -= need / 2;
      wrote();
      await new Promise<void>((resolve) => (finish = resolve));
      return 'first';
    },
  );
  await halfway;
  t.equal(room.held, need / 2, 'the first holds only what it has still to write');
  t.equal(
    await room.run(
      s,
      async () => free,
      async () => 'second',
    ),
    'second',
    'so a second fits beside it (counted whole, the first would have left too little)',
  );
  finish();
  t.equal(await first, 'first');
  t.equal(room.held, 0, 'nothing is held once the builds have ended');
});

t.test('a real build counts every byte it writes, holes left out, on all its threads', async (t) => {
  const dir = path.join(work, 'counted');
  mkdirSync(path.join(dir, 'a'), { recursive: true });
  // Enough files for the build to split over threads, and a sparse one whose holes are not written.
  for (let i = 0; i < 3000; i++) writeFileSync(path.join(dir, 'a', `f${i}.txt`), `file ${i}\n`.repeat(1 + (i % 50)));
  const sparse = openSync(path.join(dir, 'sparse.img'), 'w');
  writeSync(sparse, 'data at the start', 0);
  writeSync(sparse, 'x', 8 * MiB);
  closeSync(sparse);
  const s = await snap(dir);
  t.ok((s.stats.holeBytes ?? 0) >= 6 * MiB, 'the snapshot holds whole chunks of zeros');
  const counter = new SharedArrayBuffer(8);
  const made = await materialize({
    op: 'materialize',
    storeDir: path.join(work, 'store'),
    entriesFile: path.join(work, 'store/manifests', `${s.id}.entries`),
    entriesSha256: s.entriesSha256,
    target: path.join(work, 'counted-fork'),
    threads: 2,
    written: counter,
  });
  t.equal(made.files, s.stats.files);
  t.equal(Number(new BigInt64Array(counter)[0]), s.stats.bytes - (s.stats.holeBytes ?? 0), "the count is the files' bytes but the holes");
});

t.test('a snapshot whose summary predates holeBytes: its holes are counted from its entries, not taken as room a build needs', async (t) => {
  const dir = path.join(work, 'older');
  mkdirSync(dir);
  // 40 MiB of holes and 1 MiB of data.
  const fd = openSync(path.join(dir, 'sparse.img'), 'w');
  writeSync(fd, Buffer.alloc(1), 0, 1, 40 * MiB - 1);
  closeSync(fd);
  writeFileSync(path.join(dir, 'data.bin'), randomBytes(MiB));
  const storeDir = path.join(work, 'older-store');
  const made = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
  await made.open();
  const handle = await open(dir, DIR_FLAGS);
  const s = await made.create({ rootFd: handle.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_older', name: 'older', cwd: 'older' } });
  await handle.close();
  await made.close();
  t.equal(s.stats.holeBytes, 40 * MiB);
  // As an older version wrote it: no holeBytes, nor the buildBytes recorded later still.
  const summaryPath = path.join(storeDir, 'manifests', `${s.id}.json`);
  const older = JSON.parse(readFileSync(summaryPath, 'utf8')) as SnapshotSummary;
  delete older.stats.holeBytes;
  delete older.stats.buildBytes;
  writeFileSync(summaryPath, JSON.stringify(older));
  const reopened = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
  await reopened.open();
  t.teardown(() => reopened.close());
  t.equal(reopened.get(s.id).stats.holeBytes, undefined, 'the summary read back has none');
  t.ok(buildBytes(older) > 41 * MiB, 'taken at its word, the summary asks room for every byte, holes too');
  const target = path.join(work, 'older-fork');
  // Room for the data and the entries, far from room for the holes.
  await reopened.materialize(s.id, target, undefined, 'fork', async () => 8 * MiB);
  t.equal(sha(path.join(target, 'data.bin')), sha(path.join(dir, 'data.bin')), 'built: the holes were not counted');
  t.ok(allocated(path.join(target, 'sparse.img')) <= MiB, 'and left as holes');
  await t.rejects(
    reopened.materialize(s.id, path.join(work, 'older-fork-2'), undefined, 'fork', async () => MiB / 2),
    { code: 'ABX_ERR_DISK_LOW', message: /would write about 1\.\d MiB/ },
    'its data is still counted',
  );
});

// What a capture reads is bounded by what its agent's disk budget pays for, on a real store: a file of many hard links is read
// once, and the holes of sparse files are read through only up to the capture's allowance (then it fails whole, nothing kept).
import t from 'tap';
import { closeSync, ftruncateSync, linkSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { RACY_MS } from '../../management-api/src/snapshots/capture.js';
import { CHUNK_BYTES, ZERO_CHUNK_SHA256 } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { bytesRead, captureDir } from '../helpers/store-capture.js';

const MIB = 1024 * 1024;
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-capture-bounds-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const store = new SnapshotStore({ dir: path.join(work, 'store'), logger: pino({ level: 'silent' }) });
t.before(() => store.open());
t.teardown(() => store.close());

const capture = (dir: string, maxHoleBytes?: number) => captureDir(store, dir, maxHoleBytes !== undefined ? { maxHoleBytes } : {});

/** A file of `size` bytes that takes no disk: all holes. */
function sparse(file: string, size: number): void {
  const fd = openSync(file, 'w');
  try {
    ftruncateSync(fd, size);
  } finally {
    closeSync(fd);
  }
}

t.test('a file of 40 hard links is read once, and every name comes back with its bytes', async (t) => {
  const dir = path.join(work, 'linked');
  mkdirSync(path.join(dir, 'sub'), { recursive: true });
  const bytes = Buffer.alloc(4 * MIB);
  for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((i * 2654435761) >>> 0, i);
  writeFileSync(path.join(dir, 'one.bin'), bytes);
  for (let i = 0; i < 40; i++) linkSync(path.join(dir, 'one.bin'), path.join(dir, i % 2 ? 'sub' : '', `link-${i}.bin`));
  // Older than the racy margin: a file changed just before it is read is read again under each name.
  await sleep(RACY_MS + 20);
  // A capture thread started and its modules loaded first: those reads are not the capture's.
  const warm = path.join(work, 'warm');
  mkdirSync(warm);
  await capture(warm);
  const before = bytesRead();
  const made = await capture(dir);
  const read = bytesRead() - before;
  t.equal(made.stats.files, 41, 'every name is a file of the snapshot');
  t.equal(made.stats.bytes, 41 * 4 * MIB, 'each of its full size');
  t.ok(read < 2 * 4 * MIB, `the file was read once (${(read / MIB).toFixed(1)} MiB read in all; 41 reads would be ${41 * 4} MiB)`);

  const fork = path.join(work, 'linked-fork');
  await store.materialize(made.id, fork, undefined, 'fork');
  const names = ['one.bin', ...Array.from({ length: 40 }, (_, i) => path.join(i % 2 ? 'sub' : '', `link-${i}.bin`))];
  t.ok(
    names.every((n) => readFileSync(path.join(fork, n)).equals(bytes)),
    'every name of the fork holds the bytes',
  );

  // Written through one name: every name is that inode, so the next capture reads it once more and every name has the new bytes.
  const changed = Buffer.from(bytes);
  changed.write('changed', 0);
  writeFileSync(path.join(dir, 'sub/link-1.bin'), changed);
  await sleep(RACY_MS + 20);
  const again = await capture(dir);
  const fork2 = path.join(work, 'linked-fork-2');
  await store.materialize(again.id, fork2, undefined, 'fork');
  t.ok(
    names.every((n) => readFileSync(path.join(fork2, n)).equals(changed)),
    'after a write through one name, every name of the next snapshot holds the new bytes',
  );
});

t.test('a file of hard links written just before the capture is read under each name (its stamp cannot be trusted yet)', async (t) => {
  const dir = path.join(work, 'racy');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'a.bin'), Buffer.alloc(2 * MIB, 1));
  linkSync(path.join(dir, 'a.bin'), path.join(dir, 'b.bin'));
  const before = bytesRead();
  const made = await capture(dir);
  t.equal(made.stats.files, 2);
  t.ok(bytesRead() - before >= 4 * MIB, 'both names were read');
});

t.test("the holes of sparse files are read through up to the capture's allowance; past it the capture fails whole", async (t) => {
  const dir = path.join(work, 'sparse');
  mkdirSync(dir, { recursive: true });
  // Three files of 24 MiB taking no disk: 72 MiB of holes. And 8 MiB of zeros actually written, which are not holes.
  for (const name of ['a.img', 'b.img', 'c.img']) sparse(path.join(dir, name), 24 * MIB);
  writeFileSync(path.join(dir, 'zeros.bin'), Buffer.alloc(8 * MIB));
  t.ok(statSync(path.join(dir, 'a.img')).blocks * 512 < MIB, 'the sparse files take (almost) no disk');
  await sleep(RACY_MS + 20);
  const kept = store.list().length;

  await t.rejects(
    capture(dir, 40 * MIB),
    {
      code: 'ABX_ERR_FILE_TOO_LARGE',
      message: new RegExp(
        `sparse files hold more than ${40 * MIB} bytes of holes \\(the agent's disk budget\\), which a snapshot would read as zeros \\(stopped reading "[abc]\\.img"\\).*; nothing was kept$`,
      ),
    },
    '72 MiB of holes against an allowance of 40 MiB: refused, naming the file it stopped at',
  );
  t.equal(store.list().length, kept, 'no snapshot was kept');
  t.same(readdirSync(path.join(work, 'store/tmp')), [], 'and nothing half-made is left in the store');

  const made = await capture(dir, 80 * MIB);
  t.equal(made.stats.bytes, 80 * MIB, 'with 80 MiB allowed it is captured: every byte');
  t.equal(made.stats.holeBytes, 80 * MIB, 'all of it whole chunks of zeros (the written zeros too)');
  t.equal(made.stats.addedBytes, CHUNK_BYTES, 'stored as one chunk');
  const indexes = readdirSync(path.join(work, 'store/packs')).filter((n) => n.endsWith('.idx'));
  const stored = indexes.flatMap((n) => Object.keys(JSON.parse(readFileSync(path.join(work, 'store/packs', n), 'utf8')) as object));
  t.ok(stored.includes(ZERO_CHUNK_SHA256), 'named by the hash of a chunk of zeros');

  // Written zeros are allocated: they cost the disk budget, so they are no holes to bound.
  const written = path.join(work, 'written-zeros');
  mkdirSync(written);
  writeFileSync(path.join(written, 'zeros.bin'), Buffer.alloc(16 * MIB));
  await sleep(RACY_MS + 20);
  t.equal((await capture(written, MIB)).stats.bytes, 16 * MIB, 'a file of written zeros is captured under an allowance of 1 MiB');
});

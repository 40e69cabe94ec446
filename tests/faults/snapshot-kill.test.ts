// kill -9 during a snapshot: no half-written snapshot is listed, the store opens clean, a later snapshot works and what the killed one stored is swept;
// and a disk that fills during a capture, its entries write or a delete's repack fails cleanly.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { loadIndex } from '../../management-api/src/snapshots/object-store.js';

const child = fileURLToPath(new URL('./snapshot-kill-child.ts', import.meta.url));
// The TypeScript loader this test runs under, so the child runs the same source.
const loader = process.execArgv.filter((a) => a.startsWith('--import=') && a.includes('typescript'));

/** Bytes of the packs being written in the store's tmp/. */
function packBytes(storeDir: string): number {
  try {
    return readdirSync(path.join(storeDir, 'tmp'))
      .filter((n) => n.endsWith('.pack'))
      .reduce((sum, n) => sum + statSync(path.join(storeDir, 'tmp', n)).size, 0);
  } catch {
    return 0;
  }
}

/** 1,500 distinct files of 16 KiB and 64 distinct MiB in large files: long enough to be killed inside. */
function makeTree(dir: string): void {
  for (let d = 0; d < 15; d++) {
    mkdirSync(path.join(dir, `d${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(path.join(dir, `d${d}`, `f${f}.txt`), `${d}/${f} `.repeat(2048).slice(0, 16384));
  }
  for (let b = 0; b < 4; b++) {
    const big = Buffer.alloc(16 << 20);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32LE(b * 1_000_000 + i, i);
    writeFileSync(path.join(dir, `big${b}.bin`), big);
  }
}

t.test('SIGKILL mid-capture, then reopen', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-snapshot-kill-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const storeDir = path.join(root, 'store');
  const tree = path.join(root, 'tree');
  makeTree(tree);

  const proc = spawn(process.execPath, [...loader, child, storeDir, tree], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
  let out = '';
  proc.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  // Killed once the capture has stored objects but before it finished (it prints "done" then).
  for (let i = 0; i < 2000 && !out.includes('done'); i++) {
    if (out.includes('capturing') && packBytes(storeDir) >= 24 << 20) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  t.notOk(out.includes('done'), 'the capture had not finished');
  proc.kill('SIGKILL');
  t.equal(await exited, 'SIGKILL');
  const written = packBytes(storeDir);
  t.ok(written >= 24 << 20, `the killed capture had written ${written} bytes of its pack`);
  t.same(
    readdirSync(path.join(storeDir, 'manifests')).filter((n) => n.endsWith('.json')),
    [],
    'no summary: nothing looks like a snapshot',
  );

  const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }), durable: false });
  await store.open();
  t.same(store.list(), [], 'nothing listed after the kill');
  t.same(readdirSync(path.join(storeDir, 'tmp')), [], 'temporary files cleared at open');
  const dir = await open(tree, DIR_FLAGS);
  t.teardown(() => dir.close());
  const made = await store.create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_after', name: 'after', cwd: 'after' } });
  t.equal(made.stats.files, 1504, 'a later snapshot works');
  t.same(
    store.list().map((s) => s.id),
    [made.id],
  );
  await store.sweep();
  t.equal(loadIndex(storeDir).size, made.stats.chunks, 'the store holds the new snapshot’s chunks, each once');
  t.same(readdirSync(path.join(storeDir, 'packs')).sort(), [`${made.id}.idx`, `${made.id}.pack`], 'one pack, its index beside it');
  const target = path.join(root, 'restored');
  const back = await store.materialize(made.id, target, undefined, 'restore');
  t.equal(back.files, 1504, 'and it reads back whole');
});

/**
 * A store on a tmpfs of `size` (a disk that fills), removed after the test; undefined when this
 * machine cannot mount one (the test then passes as skipped, saying why).
 */
function smallDiskStore(t: Test, size: string, name: string): { root: string; storeDir: string } | undefined {
  if (process.getuid?.() !== 0) {
    t.pass('a full disk', { skip: 'mounting a small tmpfs needs root' });
    return undefined;
  }
  const root = mkdtempSync(path.join(tmpdir(), `agentbox-snapshot-${name}-`));
  const storeDir = path.join(root, 'store');
  mkdirSync(storeDir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', storeDir]);
  if (mounted.status !== 0) {
    t.pass('a full disk', { skip: `cannot mount a tmpfs here: ${String(mounted.stderr).trim()}` });
    rmSync(root, { recursive: true, force: true });
    return undefined;
  }
  t.teardown(() => {
    spawnSync('umount', [storeDir]);
    rmSync(root, { recursive: true, force: true });
  });
  return { root, storeDir };
}

/** Snapshot `tree` into `store` as `agent`, expecting it to fail: the error. */
async function failedCreate(t: Test, store: SnapshotStore, tree: string, agent: string): Promise<unknown> {
  const dir = await open(tree, DIR_FLAGS);
  t.teardown(() => dir.close());
  return store.create({ rootFd: dir.fd, ownUid: 0, agent: { id: agent, name: 'full', cwd: 'full' } }).then(
    () => undefined,
    (e: unknown) => e,
  );
}

t.test('a full disk fails cleanly: 507, nothing listed, what was stored swept', async (t) => {
  const disk = smallDiskStore(t, '8m', 'full');
  if (!disk) return;
  const { root, storeDir } = disk;
  const tree = path.join(root, 'tree');
  makeTree(tree);
  const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }), durable: false });
  await store.open();
  const err = await failedCreate(t, store, tree, 'agt_full');
  t.match(err, { code: 'ABX_ERR_DISK_LOW', message: /disk filled/ }, 'refused as a full disk');
  t.same(store.list(), [], 'nothing listed');
  await store.sweep();
  t.equal(loadIndex(storeDir).size, 0, 'no chunk kept');
  t.same(readdirSync(path.join(storeDir, 'packs')), [], 'no pack kept');
  t.same(readdirSync(path.join(storeDir, 'tmp')), [], 'no temporary file left');
});

t.test('a disk that fills while the entries file is written (chunks that fit, names that do not): 507, nothing listed, nothing left', async (t) => {
  const disk = smallDiskStore(t, '1m', 'full-entries');
  if (!disk) return;
  const { root, storeDir } = disk;
  // 8,000 files of one content: one chunk in the pack, and about 1.5 MB of entries, more than the disk holds.
  const tree = path.join(root, 'tree');
  for (let d = 0; d < 8; d++) {
    mkdirSync(path.join(tree, `d${d}`), { recursive: true });
    for (let i = 0; i < 1000; i++) writeFileSync(path.join(tree, `d${d}`, `a-file-with-a-long-name-${i}.txt`), 'the same\n');
  }
  const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
  await store.open();
  const err = await failedCreate(t, store, tree, 'agt_full_entries');
  t.match(err, { code: 'ABX_ERR_DISK_LOW', message: /disk filled/ }, 'refused as a full disk');
  t.same(store.list(), [], 'nothing listed');
  t.same(readdirSync(path.join(storeDir, 'manifests')), [], 'no entries file named');
  t.same(readdirSync(path.join(storeDir, 'tmp')), [], 'no temporary file left');
  await store.close();
});

t.test('a disk too full to repack during a delete: 507, the snapshot gone, every other one whole, nothing half-written; a later sweep frees it', async (t) => {
  const disk = smallDiskStore(t, '8m', 'full-repack');
  if (!disk) return;
  const { root, storeDir } = disk;
  // Two trees: `both` holds 3 MiB that `kept` also holds and 3 MiB of its own. Deleting the snapshot of `both` leaves its pack
  // with live chunks and dead ones: the sweep copies the 3 MiB live into a new pack, more than the disk has left.
  const shared = Array.from({ length: 3 }, () => randomBytes(1 << 20));
  const own = Array.from({ length: 3 }, () => randomBytes(1 << 20));
  const both = path.join(root, 'both');
  const kept = path.join(root, 'kept');
  mkdirSync(both);
  mkdirSync(kept);
  shared.forEach((data, i) => {
    writeFileSync(path.join(both, `shared${i}.bin`), data);
    writeFileSync(path.join(kept, `shared${i}.bin`), data);
  });
  for (const [i, data] of own.entries()) writeFileSync(path.join(both, `own${i}.bin`), data);
  const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }), durable: false });
  await store.open();
  t.teardown(() => store.close());
  const snap = async (tree: string, agent: string) => {
    const dir = await open(tree, DIR_FLAGS);
    try {
      return await store.create({ rootFd: dir.fd, ownUid: 0, agent: { id: agent, name: agent, cwd: agent } });
    } finally {
      await dir.close();
    }
  };
  const first = await snap(both, 'agt_both');
  const second = await snap(kept, 'agt_kept');
  t.equal(second.stats.addedBytes, 0, 'the second snapshot stored nothing new (its chunks are in the first pack)');
  const packsBefore = readdirSync(path.join(storeDir, 'packs')).sort();

  const err = await store.delete(first.id).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(
    err,
    { code: 'ABX_ERR_DISK_LOW', message: /disk filled during the snapshot delete: the snapshot is deleted; its space is freed by the next delete or start/ },
    'refused as a full disk',
  );
  t.same(
    store.list().map((s) => s.id),
    [second.id],
    'the deleted snapshot is gone (its summary went first); the other stays',
  );
  t.same(readdirSync(path.join(storeDir, 'tmp')), [], 'no half-written pack left in tmp/');
  t.same(readdirSync(path.join(storeDir, 'packs')).sort(), packsBefore, 'the old pack and its index are untouched');
  const built = path.join(root, 'built-1');
  await store.materialize(second.id, built, undefined, 'restore');
  for (const [i, data] of shared.entries()) t.ok(readFileSync(path.join(built, `shared${i}.bin`)).equals(data), `shared${i}.bin built back whole`);

  // Room again: the next sweep finishes the repack and frees the deleted snapshot's own 3 MiB.
  t.equal(spawnSync('mount', ['-o', 'remount,size=16m', storeDir]).status, 0, 'the disk grown');
  const freed = await store.sweep();
  t.equal(freed.freedBytes, 3 << 20, "the sweep frees the deleted snapshot's own chunks");
  t.equal(await store.storedBytes(), 3 << 20, 'the packs hold the live 3 MiB only');
  const again = path.join(root, 'built-2');
  await store.materialize(second.id, again, undefined, 'restore');
  for (const [i, data] of shared.entries())
    t.ok(readFileSync(path.join(again, `shared${i}.bin`)).equals(data), `shared${i}.bin built back whole after the repack`);
  t.same(readdirSync(path.join(storeDir, 'tmp')), [], 'nothing left in tmp/');
});

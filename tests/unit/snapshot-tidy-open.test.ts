// A snapshot store closed with nothing to sweep leaves a marker, and its next open skips the sweep (which reads every entries file);
// a store that was killed, or in which an operation failed, has no marker and is swept at its next open.
import t, { type Test } from 'tap';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SnapshotStore, TIDY_MARKER } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-snapshot-tidy-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const tree = path.join(work, 'tree');
mkdirSync(tree);
for (let i = 0; i < 5; i++) writeFileSync(path.join(tree, `f${i}.txt`), `file ${i}\n`.repeat(100));

async function snap(store: SnapshotStore, dir: string) {
  const fd = await open(dir, DIR_FLAGS);
  try {
    return await store.create({ rootFd: fd.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_tidy', name: 'tidy', cwd: 'tidy' } });
  } finally {
    await fd.close();
  }
}

async function opened(t: Test, dir: string): Promise<SnapshotStore> {
  const store = new SnapshotStore({ dir, logger: pino({ level: 'silent' }) });
  await store.open();
  t.teardown(() => store.close());
  return store;
}

const marker = (dir: string) => path.join(dir, 'tmp', TIDY_MARKER);
/** What only a sweep removes: an entries file no summary refers to (as a capture killed before its commit leaves). */
const plantLeftover = (dir: string) => {
  const file = path.join(dir, 'manifests', 'snp_leftover00000.entries');
  writeFileSync(file, '{"type":"dir","path":"","mode":493,"mtimeNs":"1"}\n');
  return file;
};

t.test('closed with nothing to sweep: the marker is left, the next open removes it and skips the sweep', async (t) => {
  const dir = path.join(work, 'store-tidy');
  const store = await opened(t, dir);
  const made = await snap(store, tree);
  await store.close();
  t.ok(existsSync(marker(dir)), 'the marker, after a close');
  const leftover = plantLeftover(dir);
  const again = await opened(t, dir);
  t.notOk(existsSync(marker(dir)), 'gone once opened: a kill from here on leaves none');
  t.same(
    again.list().map((s) => s.id),
    [made.id],
    'the snapshots, listed as before',
  );
  await again.close();
  t.ok(existsSync(leftover), 'not swept: nothing a store closed tidy can hold');
  t.ok(existsSync(marker(dir)), 'tidy again after a close with no failure');
});

t.test('no marker (a kill after the open): the next open sweeps', async (t) => {
  const dir = path.join(work, 'store-killed');
  const store = await opened(t, dir);
  await snap(store, tree);
  await store.close();
  // As a kill leaves it: opened (the marker removed), never closed.
  rmSync(marker(dir));
  const leftover = plantLeftover(dir);
  const again = await opened(t, dir);
  await again.close();
  t.notOk(existsSync(leftover), 'swept by the open');
  t.ok(existsSync(marker(dir)), 'and tidy once swept and closed');
});

t.test('an operation that failed: no marker, and the next open sweeps', async (t) => {
  const dir = path.join(work, 'store-failed');
  const deep = path.join(work, 'deep');
  mkdirSync(path.join(deep, ...Array.from({ length: 130 }, () => 'd')), { recursive: true });
  const store = await opened(t, dir);
  await snap(store, tree);
  await t.rejects(snap(store, deep), { code: 'ABX_ERR_FILE_TOO_LARGE' }, 'a tree too deep is refused');
  await store.close();
  t.notOk(existsSync(marker(dir)), 'no marker after a failure');
  const leftover = plantLeftover(dir);
  const again = await opened(t, dir);
  await again.close();
  t.notOk(existsSync(leftover), 'swept by the next open');
});

t.test('closed before its open was swept: the close waits for the sweep, then leaves the marker', async (t) => {
  const dir = path.join(work, 'store-quick');
  mkdirSync(path.join(dir, 'manifests'), { recursive: true });
  const leftover = plantLeftover(dir);
  const store = new SnapshotStore({ dir, logger: pino({ level: 'silent' }) });
  await store.open();
  await store.close();
  t.notOk(existsSync(leftover), 'swept before the close returned');
  t.ok(existsSync(marker(dir)));
});

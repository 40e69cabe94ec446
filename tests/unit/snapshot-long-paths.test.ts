// A snapshot of a tree whose paths are longer than PATH_MAX comes back whole: a capture walks by descriptors, so the build
// must make each entry through its parent's descriptor too, never by its whole path (which the kernel refuses past 4,096 bytes).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { makeDeepChain, tarOf } from '../helpers/deep-tree.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-long-paths-'));
// coreutils, not Node's recursive removal, which builds whole paths and fails past PATH_MAX; read-only directories made writable first.
t.teardown(() => {
  execFileSync('chmod', ['-R', 'u+w', work]);
  execFileSync('rm', ['-rf', work]);
});

/** 24 levels of 250-byte names: about 6,000 bytes of path below the working directory. */
const LEVELS = 24;

/** Make the deep tree below `root` one step at a time (each call's path stays short): a file at every level, a link and a read-only directory at the bottom. */
function makeDeepTree(root: string): void {
  makeDeepChain(root, LEVELS, {
    inLevel: (i) => writeFileSync(`file-${i}.txt`, `level ${i}\n`),
    atBottom: () => {
      writeFileSync('bottom.txt', 'the bottom\n');
      utimesSync('bottom.txt', 1_500_000_000, 1_500_000_000);
      symlinkSync('bottom.txt', 'to-bottom');
    },
    sealedMode: 0o555,
  });
}

t.test('a tree with paths past PATH_MAX is captured and built back whole: contents, modes, mtimes, links', async (t) => {
  const ws = path.join(work, 'ws');
  mkdirSync(ws);
  makeDeepTree(ws);
  const store = new SnapshotStore({ dir: path.join(work, 'store'), logger: pino({ level: 'silent' }) });
  await store.open();
  t.teardown(() => store.close());
  const dir = await open(ws, DIR_FLAGS);
  const made = await store
    .create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_long', name: 'long', cwd: 'long' } })
    .finally(() => dir.close());
  t.match(made.stats, { files: LEVELS + 2, dirs: LEVELS + 1, symlinks: 1, skipped: 0 }, 'every level captured');

  const back = path.join(work, 'back');
  const built = await store.materialize(made.id, back, undefined, 'fork');
  t.same(built, { files: LEVELS + 2, dirs: LEVELS + 2, symlinks: 1, bytes: made.stats.bytes }, 'every entry built back (the root counted)');
  const [original, rebuilt] = [tarOf(ws), tarOf(back)];
  t.ok(original.length > 20 * 512, 'the original packs');
  t.ok(rebuilt.equals(original), 'and the tree built back packs to the same bytes: names, contents, modes, mtimes, the link');
});

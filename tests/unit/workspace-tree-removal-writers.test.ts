// A recursive delete of a tree something writes to meanwhile: names added while the removal reads are removed too (the
// directory is read as the removal goes, in passes, not listed once before it), and a writer that never stops ends the
// removal with ENOTEMPTY (the files routes' 409) after bounded work instead of keeping the box busy for as long as it writes.
import t from 'tap';
import { closeSync, existsSync, linkSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { emptyFiles } from '../helpers/empty-files.js';
import { LATE_ENTRIES_FLOOR, removeTree } from '../../management-api/src/workspace-files/file-delete.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tree-removal-writers-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

t.test('files a writer adds while the directory is being removed are removed with it', async (t) => {
  const dir = path.join(work, 'busy');
  mkdirSync(dir);
  emptyFiles(dir, 10_000);
  const root = await open(work, DIR_FLAGS);
  t.teardown(() => root.close());
  const removal = removeTree(root, 'busy', 'busy');
  // Written after the removal began (a listing read once at its start would miss them all, and its
  // rmdir fail): a burst of 500 at each of the next four turns of the event loop. The removal reads
  // the directory 256 names a turn at most, so the writer is done while the first of its 10,000
  // names are still being removed (a writer still at work when the removal reaches the end is the
  // case of the last test).
  let added = 0;
  await new Promise<void>((resolve) => {
    const burst = (): void => {
      for (let i = 0; i < 500; i++) closeSync(openSync(path.join(dir, `late${added++}`), 'w'));
      if (added < 2_000) setImmediate(burst);
      else resolve();
    };
    setImmediate(burst);
  });
  t.equal(await removal, 1 + 10_000 + added, 'the directory, its files and every file added meanwhile');
  t.notOk(existsSync(dir), 'the directory is gone');
});

t.test('a tree whose files have a second link in it: removed whole (its own unlinks move the other names’ ctime)', async (t) => {
  const dir = path.join(work, 'linked');
  mkdirSync(path.join(dir, 'a'), { recursive: true });
  mkdirSync(path.join(dir, 'b'));
  const count = LATE_ENTRIES_FLOOR + 2_000;
  emptyFiles(path.join(dir, 'a'), count);
  for (let i = 0; i < count; i++) linkSync(path.join(dir, 'a', `f${i}`), path.join(dir, 'b', `f${i}`));
  // Older than the removal by more than the file clock's tick.
  await sleep(50);
  const root = await open(work, DIR_FLAGS);
  t.teardown(() => root.close());
  t.equal(await removeTree(root, 'linked', 'linked'), 3 + 2 * count, 'both directories and both names of every file');
  t.notOk(existsSync(dir), 'the tree is gone');
});

t.test('a writer that never stops: the removal ends with ENOTEMPTY after bounded work, what it removed stays removed', async (t) => {
  const dir = path.join(work, 'flood');
  mkdirSync(dir);
  emptyFiles(dir, 1_000);
  // An agent's loop, as fast as it can make names: here a burst of names at every turn of this
  // process's event loop, between the removal's own steps, so that it outpaces the removal whatever
  // the machine's load (a writer in a process of its own could be held off the CPU for a whole pass).
  let written = 0;
  let writing = true;
  const burst = (): void => {
    if (!writing) return;
    try {
      for (let i = 0; i < 5; i++) closeSync(openSync(path.join(dir, `w${written++}`), 'w'));
    } catch {
      return;
    }
    setImmediate(burst);
  };
  burst();
  t.teardown(() => {
    writing = false;
  });
  const root = await open(work, DIR_FLAGS);
  t.teardown(() => root.close());
  await t.rejects(removeTree(root, 'flood', 'flood'), { code: 'ENOTEMPTY' }, 'stopped with the errno the files routes answer 409');
  writing = false;
  t.ok(existsSync(dir), 'the directory is still there, as the writer kept it');
});

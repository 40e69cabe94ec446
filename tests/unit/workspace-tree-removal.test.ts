// A recursive delete reads each directory as a stream and removes entries as it reads them: a directory of tens of thousands of
// names goes whole, with a link in it removed (never followed) and a name that is not UTF-8 removed by its bytes.
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { emptyFiles } from '../helpers/empty-files.js';
import { REMOVE_BATCH, removeTree } from '../../management-api/src/workspace-files/file-delete.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tree-removal-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

t.test('a directory of 50,000 empty files, a subdirectory, a link and a name that is not UTF-8: all removed and counted', async (t) => {
  const ws = path.join(work, 'ws');
  const big = path.join(ws, 'big');
  mkdirSync(path.join(big, 'sub'), { recursive: true });
  emptyFiles(big, 50_000);
  emptyFiles(path.join(big, 'sub'), 3 * REMOVE_BATCH);
  const outside = path.join(work, 'outside.txt');
  writeFileSync(outside, 'the host file\n');
  symlinkSync(outside, path.join(big, 'link'));
  // Latin-1 "café": Node's text listing would name it with U+FFFD, which names nothing.
  writeFileSync(Buffer.concat([Buffer.from(`${big}/caf`), Buffer.of(0xe9)]), 'bytes\n');
  const root = await open(ws, DIR_FLAGS);
  t.teardown(() => root.close());
  const removed = await removeTree(root, 'big', 'big', { depth: 1 });
  t.equal(
    removed,
    1 + 50_000 + 1 + 3 * REMOVE_BATCH + 1 + 1,
    'every entry counted: the directory, its files, the subdirectory and its files, the link, the byte name',
  );
  t.notOk(existsSync(big), 'the directory is gone');
  t.equal(readFileSync(outside, 'utf8'), 'the host file\n', "the link's target is as it was");
});

t.test('files with many blocks (unlinked on the thread pool) and small ones (on the calling thread) in one tree: all removed', async (t) => {
  const ws = path.join(work, 'ws-sizes');
  const tree = path.join(ws, 'tree');
  mkdirSync(path.join(tree, 'deeper'), { recursive: true });
  for (const name of ['a.bin', 'deeper/b.bin']) writeFileSync(path.join(tree, name), Buffer.alloc(3 * 1024 * 1024, 1));
  emptyFiles(tree, 100);
  emptyFiles(path.join(tree, 'deeper'), 100);
  const root = await open(ws, DIR_FLAGS);
  t.teardown(() => root.close());
  t.equal(await removeTree(root, 'tree', 'tree', { depth: 1 }), 1 + 1 + 2 + 200, 'both directories, the two large files and the small ones');
  t.notOk(existsSync(tree), 'the tree is gone');
});

// A directory an agent swaps for a link or a file after the box has seen it (between its lstat and
// its open, or between a tar's check and its merge): the box never follows the link, and fails with
// the errno the files routes answer as the workspace changed under the request (409), not as an error
// of its own saying the request named a path through a link (400). Driven at the seam, where the race is.
import t from 'tap';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiError } from '../../management-api/src/errors.js';
import { DIR_FLAGS, openSeenDir } from '../../management-api/src/workspace-files/dir-fd.js';
import { checkMerge, merge } from '../../management-api/src/workspace-files/tar-merge.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-dir-swap-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const outside = path.join(work, 'outside');
mkdirSync(outside);
writeFileSync(path.join(outside, 'keep.txt'), 'the host file\n');

/** The errors of an entry changed between the check and the use (files-routes.ts answers them 409 ABX_ERR_CONFLICT). */
const RACED = /^(ELOOP|ENOTDIR|ENOENT|EISDIR)$/;

t.test('a directory seen, then a link or a file or nothing in its place: the raced errno, nothing followed', async (t) => {
  const ws = path.join(work, 'ws1');
  mkdirSync(ws);
  const root = await open(ws, DIR_FLAGS);
  t.teardown(() => root.close());
  for (const [name, swap] of [
    ['to-link', (p: string) => symlinkSync(outside, p)],
    ['to-file', (p: string) => writeFileSync(p, 'a file now\n')],
    ['gone', () => undefined],
  ] as const) {
    const where = path.join(ws, name);
    mkdirSync(where);
    rmSync(where, { recursive: true });
    swap(where);
    const err = await openSeenDir(root, name).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.notOk(err instanceof ApiError, `${name}: not the box's own refusal of a path through a link`);
    t.match(err, { code: RACED }, `${name}: the errno of an entry changed meanwhile`);
  }
});

t.test("a tar's merge: the workspace's directory swapped for a link after the check moves nothing through it", async (t) => {
  const staged = path.join(work, 'staged');
  const target = path.join(work, 'target');
  mkdirSync(path.join(staged, 'lib'), { recursive: true });
  writeFileSync(path.join(staged, 'lib', 'keep.txt'), 'from the tar\n');
  mkdirSync(path.join(target, 'lib'), { recursive: true });
  const [src, dst] = [await open(staged, DIR_FLAGS), await open(target, DIR_FLAGS)];
  t.teardown(async () => {
    await src.close();
    await dst.close();
  });
  await checkMerge(src, dst, '', { left: 10 });
  // The agent's move, between the box's check and its merge.
  rmSync(path.join(target, 'lib'), { recursive: true });
  symlinkSync(outside, path.join(target, 'lib'));
  await t.rejects(merge(src, dst, { left: 10 }), { code: RACED });
  t.equal(readFileSync(path.join(outside, 'keep.txt'), 'utf8'), 'the host file\n', 'the host file is as it was');
  t.ok(existsSync(path.join(staged, 'lib', 'keep.txt')), 'the staged file did not move through the link');
});

t.test("a tar's merge: a file of the workspace swapped for a directory after the check fails the merge, the directory kept", async (t) => {
  const staged = path.join(work, 'staged2');
  const target = path.join(work, 'target2');
  mkdirSync(staged);
  writeFileSync(path.join(staged, 'notes.txt'), 'from the tar\n');
  mkdirSync(target);
  writeFileSync(path.join(target, 'notes.txt'), 'the old notes\n');
  const [src, dst] = [await open(staged, DIR_FLAGS), await open(target, DIR_FLAGS)];
  t.teardown(async () => {
    await src.close();
    await dst.close();
  });
  await checkMerge(src, dst, '', { left: 10 });
  rmSync(path.join(target, 'notes.txt'));
  mkdirSync(path.join(target, 'notes.txt'));
  writeFileSync(path.join(target, 'notes.txt', 'inside'), 'kept\n');
  await t.rejects(merge(src, dst, { left: 10 }), { code: RACED });
  t.equal(readFileSync(path.join(target, 'notes.txt', 'inside'), 'utf8'), 'kept\n', 'what the agent put there stays');
});

// A tar upload's staging directory holding more names than the upload wrote (an agent of the box's uid writing into it while the upload ran): the check and the merge read no further than the upload's own entries, and stop with a conflict.
import t, { type Test } from 'tap';
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { checkMerge, merge } from '../../management-api/src/workspace-files/tar-merge.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-merge-bound-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** A staged tree of `files` files in `sub/` (the target holds `sub/` too, so both steps go into it), and the target beside it. */
async function staged(t: Test, name: string, files: number) {
  const src = path.join(work, `${name}-staged`);
  const dst = path.join(work, `${name}-target`);
  mkdirSync(path.join(src, 'sub'), { recursive: true });
  mkdirSync(path.join(dst, 'sub'), { recursive: true });
  for (let i = 0; i < files; i++) closeSync(openSync(path.join(src, 'sub', `f${i}`), 'w'));
  writeFileSync(path.join(src, 'top.txt'), 'from the tar\n');
  const [s, d] = [await open(src, DIR_FLAGS), await open(dst, DIR_FLAGS)];
  t.teardown(async () => {
    await s.close();
    await d.close();
  });
  return { src, dst, s, d };
}

t.test('as many names as the upload wrote: checked and merged whole', async (t) => {
  const { dst, s, d } = await staged(t, 'exact', 500);
  // sub, top.txt and the 500 files.
  await checkMerge(s, d, '', { left: 502 });
  await merge(s, d, { left: 502 });
  t.equal(readdirSync(path.join(dst, 'sub')).length, 500);
  t.same(readdirSync(dst).sort(), ['sub', 'top.txt']);
});

t.test('more names than the upload wrote: the check stops with a conflict, having read no further', async (t) => {
  const { src, dst, s, d } = await staged(t, 'check', 5_000);
  const bound = { left: 1_000 };
  await t.rejects(checkMerge(s, d, '', bound), {
    code: 'ABX_ERR_CONFLICT',
    message: /holds more entries than the tar wrote: something wrote into it while the upload ran; nothing was written/,
  });
  t.equal(bound.left, -1, 'one name past the bound, and no more, was read');
  t.equal(readdirSync(path.join(dst, 'sub')).length, 0, 'nothing moved');
  t.equal(readdirSync(path.join(src, 'sub')).length, 5_000);
});

t.test('more names than the upload wrote at the merge (written after the check): it stops with a conflict', async (t) => {
  const { dst, s, d } = await staged(t, 'merge', 5_000);
  const bound = { left: 1_000 };
  await t.rejects(merge(s, d, bound), { code: 'ABX_ERR_CONFLICT', message: /what was moved into place before it stays/ });
  t.equal(bound.left, -1, 'one name past the bound, and no more, was read');
  t.ok(readdirSync(path.join(dst, 'sub')).length <= 1_000, 'no more than the bound was moved');
});

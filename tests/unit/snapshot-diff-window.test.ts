// The window of a diff kept between page requests (diff-window.ts), on real diffs of two trees: paged through it, whatever
// the page size and however small the window, the pages are those computed alone (every change once, in order, `truncated`
// exactly when more follow); a page outside the window, another pair, or a window past its time is computed again.
import t from 'tap';
import { keepWindow, pageFromWindow } from '../../management-api/src/snapshots/diff-window.js';
import { diffEntries, type SnapshotDiff } from '../../management-api/src/snapshots/snapshot-diff.js';
import type { SnapshotEntry } from '../../management-api/src/snapshots/snapshot-manifest.js';

const dir = (path: string): SnapshotEntry => ({ type: 'dir', path, mode: 0o755, mtimeNs: '0' });
const file = (path: string, content: string): SnapshotEntry => ({
  type: 'file',
  path,
  mode: 0o644,
  mtimeNs: '0',
  size: content.length,
  chunks: [content],
  key: path,
});

// 3 directories of 20 files; the later tree changes every third file, drops every fifth and adds some in a new directory.
const before: SnapshotEntry[] = [dir('')];
const after: SnapshotEntry[] = [dir('')];
for (const d of ['a', 'b', 'c']) {
  before.push(dir(d));
  after.push(dir(d));
  for (let i = 0; i < 20; i++) {
    const name = `${d}/f${String(i).padStart(2, '0')}`;
    before.push(file(name, 'x'));
    if (i % 5 === 0) continue;
    after.push(file(name, i % 3 === 0 ? 'changed' : 'x'));
  }
}
after.push(dir('new'), file('new/one', '1'), file('new/two', '2'));

/** Every page of `limit` from the start, as diffSnapshots cuts them: from the window when it holds the page, else a new window of `wide`. */
function pagesThroughWindows(limit: number, wide: number): SnapshotDiff[] {
  const owner = {};
  const pages: SnapshotDiff[] = [];
  let afterPath: string | undefined;
  for (;;) {
    let page = pageFromWindow(owner, 'p', limit, afterPath);
    if (!page) {
      keepWindow(owner, 'p', afterPath, diffEntries(before, after, Math.max(limit, wide), afterPath));
      page = pageFromWindow(owner, 'p', limit, afterPath)!;
    }
    pages.push(page);
    if (!page.truncated) return pages;
    afterPath = page.changes.at(-1)!.path;
  }
}

/** Every page of `limit` computed alone. */
function pagesAlone(limit: number): SnapshotDiff[] {
  const pages: SnapshotDiff[] = [];
  let afterPath: string | undefined;
  for (;;) {
    const page = diffEntries(before, after, limit, afterPath);
    pages.push(page);
    if (!page.truncated) return pages;
    afterPath = page.changes.at(-1)!.path;
  }
}

t.test('pages cut from windows are the pages computed alone, for every page size and window size', async (t) => {
  const whole = diffEntries(before, after, 1000);
  t.ok(whole.changes.length > 20, `a diff of ${whole.changes.length} changes`);
  for (const limit of [1, 3, 7, 10, 25, 1000])
    for (const wide of [1, 5, 8, 30, 1000]) t.same(pagesThroughWindows(limit, wide), pagesAlone(limit), `pages of ${limit}, windows of ${wide}`);
});

t.test('a window answers only its own pair, its own span and its own time', async (t) => {
  const owner = {};
  const window = diffEntries(before, after, 10, 'a/f05');
  keepWindow(owner, 'pair', 'a/f05', window, 1_000);
  t.same(pageFromWindow(owner, 'pair', 4, 'a/f05', 1_000), diffEntries(before, after, 4, 'a/f05'), 'its start');
  t.equal(pageFromWindow(owner, 'other', 4, 'a/f05', 1_000), undefined, 'another pair');
  t.equal(pageFromWindow(owner, 'pair', 4, undefined, 1_000), undefined, 'a page from the first change starts before it');
  t.equal(pageFromWindow(owner, 'pair', 4, 'a/f01', 1_000), undefined, 'a page that starts before it');
  t.equal(pageFromWindow(owner, 'pair', 11, 'a/f05', 1_000), undefined, 'a page that runs past its end, more following');
  t.equal(pageFromWindow(owner, 'pair', 4, 'a/f05', 1_000 + 61_000), undefined, 'a window past its time');
  t.equal(pageFromWindow({}, 'pair', 4, 'a/f05', 1_000), undefined, "another store's");
});

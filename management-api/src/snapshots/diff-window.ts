// A window of one diff's changes kept between page requests: a client reading a large diff page by
// page (the command line fetches 10,000 at a time) asks for the same two snapshots again at once,
// and each page computed alone re-read and re-compared both records (100,000 changes: about 3 s a
// page). Snapshots never change, so a window stays true while it is kept.
import { firstAfter, type SnapshotDiff } from './snapshot-diff.js';
import { treeKey } from './snapshot-manifest.js';

/** How many changes a window holds: some 20 MB at the most, one window a store. */
export const WINDOW_CHANGES = 100_000;
/** How long a window is kept after it was made: pages follow each other within moments. */
const KEPT_MS = 60_000;

interface Window {
  /** The two snapshots, as `before\0after`. */
  pair: string;
  /** The path the window starts after (undefined: from the first change). */
  afterPath?: string;
  diff: SnapshotDiff;
  madeAt: number;
}

/** One window per owner (a snapshot store): a box's diffs share it, and a closed store's goes with it. */
const windows = new WeakMap<object, Window>();

/** Keep `diff` (computed with at least WINDOW_CHANGES as its limit, after `afterPath`) as `owner`'s window for `pair`. */
export function keepWindow(owner: object, pair: string, afterPath: string | undefined, diff: SnapshotDiff, now = Date.now()): void {
  windows.set(owner, { pair, ...(afterPath === undefined ? {} : { afterPath }), diff, madeAt: now });
}

/** The page of at most `limit` changes after `afterPath` from `owner`'s window for `pair`; undefined when the window does not hold all of it. */
export function pageFromWindow(owner: object, pair: string, limit: number, afterPath: string | undefined, now = Date.now()): SnapshotDiff | undefined {
  const w = windows.get(owner);
  if (!w || w.pair !== pair || now - w.madeAt > KEPT_MS) return undefined;
  // A page that starts before the window is not in it.
  if (w.afterPath !== undefined && (afterPath === undefined || treeKey(afterPath) < treeKey(w.afterPath))) return undefined;
  const changes = w.diff.changes;
  const from = afterPath === undefined ? 0 : firstAfter(changes, afterPath);
  const end = from + limit;
  // A page that runs past the window's end, where more changes follow it, is not in it either.
  if (end > changes.length && w.diff.truncated) return undefined;
  return { ...w.diff, changes: changes.slice(from, end), truncated: end < changes.length || w.diff.truncated };
}

// What changed between two snapshots, from their entries alone (no file is read): the paths added, deleted and modified, as `docker diff` and `git diff --name-status` tell them.
import { readFileSync } from 'node:fs';
import { parseEntries } from './entries-file.js';
import { inTreeOrder, type SnapshotEntry, treeKey } from './snapshot-manifest.js';

/** Compare two snapshots' entries files (each checked against its sha256): the paths added, deleted and modified (snapshot-diff.ts). */
export interface DiffJob {
  op: 'diff';
  before: { entriesFile: string; entriesSha256: string };
  after: { entriesFile: string; entriesSha256: string };
  limit: number;
  /** List only the changes after this path in path order: the last path of the page before. */
  afterPath?: string;
}

/** What differs in an entry present in both snapshots. */
export type ChangeAspect = 'type' | 'content' | 'mode' | 'target';

/** One path that differs. */
export interface SnapshotChange {
  path: string;
  change: 'added' | 'deleted' | 'modified';
  /** The entry's type in the later snapshot (in the earlier one for a deletion). */
  type: SnapshotEntry['type'];
  /** For a modification: what differs (a modification time alone is not a change). */
  what?: ChangeAspect[];
  /** A file's size in the later snapshot (in the earlier one for a deletion). */
  size?: number;
  /** A modified entry's size before, when it was a file. */
  sizeBefore?: number;
}

/** The changes from one snapshot to another: counted whole, listed up to a limit. */
export interface SnapshotDiff {
  changes: SnapshotChange[];
  counts: { added: number; deleted: number; modified: number };
  /** Bytes of the files added, and of those deleted (a modified file counts in neither). */
  addedBytes: number;
  deletedBytes: number;
  /** More changes after those `changes` holds (the limit was reached): the next page starts after the last of them. */
  truncated: boolean;
}

/** The most changes one answer lists. */
export const MAX_DIFF_CHANGES = 10_000;

/**
 * The changes from `before` to `after`, listed in path order (a directory before what it holds),
 * at most `limit` of them, from the first after `afterPath` when given; counts and bytes cover
 * every change. The working directory itself (the entry '') is left out: its modification time
 * moves with every name added or removed, and its mode is the agent's to keep. Snapshots never
 * change, so pages asked one after another list every change once.
 */
export function diffEntries(before: readonly SnapshotEntry[], after: readonly SnapshotEntry[], limit: number, afterPath?: string): SnapshotDiff {
  const earlier = new Map<string, SnapshotEntry>();
  for (const e of before) if (e.path !== '') earlier.set(e.path, e);
  const all: SnapshotChange[] = [];
  const result: SnapshotDiff = { changes: [], counts: { added: 0, deleted: 0, modified: 0 }, addedBytes: 0, deletedBytes: 0, truncated: false };
  for (const e of after) {
    if (e.path === '') continue;
    const was = earlier.get(e.path);
    if (was === undefined) {
      all.push(withSize({ path: e.path, change: 'added', type: e.type }, e));
      result.counts.added++;
      if (e.type === 'file') result.addedBytes += e.size;
      continue;
    }
    earlier.delete(e.path);
    const what = aspects(was, e);
    if (what.length === 0) continue;
    const change = withSize({ path: e.path, change: 'modified', type: e.type, what }, e);
    if (was.type === 'file') change.sizeBefore = was.size;
    all.push(change);
    result.counts.modified++;
  }
  // What is left of the earlier snapshot is gone from the later one.
  for (const was of earlier.values()) {
    all.push(withSize({ path: was.path, change: 'deleted', type: was.type }, was));
    result.counts.deleted++;
    if (was.type === 'file') result.deletedBytes += was.size;
  }
  const ordered = inTreeOrder(all, (c) => c.path);
  const from = afterPath === undefined ? 0 : firstAfter(ordered, afterPath);
  result.truncated = ordered.length - from > limit;
  result.changes = ordered.slice(from, from + limit);
  return result;
}

/** The index of the first change whose path comes after `path` in path order (binary search: the changes are in that order). */
export function firstAfter(ordered: readonly SnapshotChange[], path: string): number {
  const key = treeKey(path);
  let lo = 0;
  let hi = ordered.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (treeKey(ordered[mid]!.path) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** What differs between two entries of one path. */
function aspects(was: SnapshotEntry, now: SnapshotEntry): ChangeAspect[] {
  if (was.type !== now.type) return ['type'];
  const what: ChangeAspect[] = [];
  if (was.type === 'file' && now.type === 'file') {
    if (was.size !== now.size || was.chunks.length !== now.chunks.length || was.chunks.some((c, i) => c !== now.chunks[i])) what.push('content');
    if (was.mode !== now.mode) what.push('mode');
  } else if (was.type === 'dir' && now.type === 'dir') {
    if (was.mode !== now.mode) what.push('mode');
  } else if (was.type === 'symlink' && now.type === 'symlink' && was.target !== now.target) what.push('target');
  return what;
}

function withSize(change: SnapshotChange, e: SnapshotEntry): SnapshotChange {
  if (e.type === 'file') change.size = e.size;
  return change;
}

/** In a worker thread: both entries files read and checked against their sha256, then compared. */
export function readDiff(job: DiffJob): SnapshotDiff {
  const read = (f: DiffJob['before']) => parseEntries(readFileSync(f.entriesFile), f.entriesSha256, f.entriesFile);
  return diffEntries(read(job.before), read(job.after), job.limit, job.afterPath);
}

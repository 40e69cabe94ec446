// Where each complete subtree's hash sits in an append-only file of hashes (the layout of Go's
// sumdb tlog): after leaf i, its own hash and then the hashes of the subtrees it completes.
import { EMPTY_ROOT, nodeHash } from './rfc6962.js';

/**
 * The position, in the stored sequence, of the hash of the complete subtree of 2^level leaves
 * numbered `index` at that level (covering leaves [index·2^level, (index+1)·2^level)).
 * Level L's n-th hash is written right after level L+1's (2n+1)-th; level 0's n-th sits at
 * n + n/2 + n/4 + … . Plain arithmetic, not bit operations: sizes pass 2^32.
 */
export function storedHashIndex(level: number, index: number): number {
  let n = index;
  for (let l = level; l > 0; l--) n = 2 * n + 1;
  let i = 0;
  for (; n > 0; n = Math.floor(n / 2)) i += n;
  return i + level;
}

/** How many hashes are stored for a tree of `size` leaves (2·size − popcount(size)). */
export function storedHashCount(size: number): number {
  if (size === 0) return 0;
  let count = storedHashIndex(0, size - 1) + 1;
  for (let i = size - 1; i % 2 === 1; i = Math.floor(i / 2)) count += 1;
  return count;
}

/** The largest tree size whose hashes all fit in `count` stored hashes. */
export function sizeForStoredCount(count: number): number {
  // storedHashCount is increasing and never below the size: a binary search up to `count`.
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (storedHashCount(mid) <= count) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Where the frontier of a tree of `size` leaves is stored: one complete subtree per set bit of the size, by level. */
export function frontierNodes(size: number): Array<{ level: number; index: number }> {
  const out: Array<{ level: number; index: number }> = [];
  for (let level = 0, n = size; n > 0; level++, n = Math.floor(n / 2)) {
    if (n % 2 === 1) out.push({ level, index: n - 1 });
  }
  return out;
}

/**
 * The hashes to store after appending one leaf to a tree of `size` leaves: the leaf's own hash
 * and then, while the new leaf completes subtrees, their hashes. `frontier[level]` is the hash of
 * the last complete subtree at that level whose right sibling is still missing; it is updated.
 */
export function hashesToStore(size: number, leaf: Buffer, frontier: Buffer[]): Buffer[] {
  const out = [leaf];
  let h = leaf;
  let level = 0;
  // The new leaf's index is `size`; each set low bit means a left sibling waits at that level.
  for (let i = size; i % 2 === 1; i = Math.floor(i / 2)) {
    h = nodeHash(frontier[level]!, h);
    out.push(h);
    level += 1;
  }
  // Levels below are now empty (never read until refilled); levels above keep their left siblings.
  frontier[level] = h;
  return out;
}

/** The root of a tree of `size` leaves from its frontier (as `hashesToStore` keeps it). */
export function rootFromFrontier(size: number, frontier: readonly Buffer[]): Buffer {
  if (size === 0) return EMPTY_ROOT;
  let root: Buffer | undefined;
  for (let level = 0, n = size; n > 0; level++, n = Math.floor(n / 2)) {
    if (n % 2 === 1) root = root ? nodeHash(frontier[level]!, root) : frontier[level]!;
  }
  return root!;
}

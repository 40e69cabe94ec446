// Which subtree hashes an RFC 6962 proof is made of (PATH and PROOF of §2.1.1–2.1.2), as ranges
// of leaves, each the fold of at most log2(n) stored complete subtrees: reads are planned first,
// done by the caller (a file, memory), and the proof assembled from what was read.
import { nodeHash } from './rfc6962.js';

/** A complete subtree: 2^level leaves starting at leaf index·2^level. */
export interface NodeRef {
  level: number;
  index: number;
}

/** Leaves [lo, hi) of the tree. */
export interface LeafRange {
  lo: number;
  hi: number;
}

/** What a proof needs: its ranges in proof order, and the complete subtrees they are folded from. */
export interface ProofPlan {
  ranges: LeafRange[];
  /** Every subtree to read, once each; `assemble` takes their hashes in this order. */
  nodes: NodeRef[];
}

/** A tree size, index or proof bound that is not usable: the message says which and why. */
export class ProofRangeError extends Error {
  override name = 'ProofRangeError';
}

/** The largest power of two strictly below `n` (n ≥ 2): RFC 6962's split point k. */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * [lo, hi) as maximal complete subtrees, left to right. For the ranges proofs use (lo a multiple
 * of a power of two at least hi − lo), these are the binary digits of the length, largest first,
 * and the range's MTH is their fold from the right.
 */
export function completeSubtrees(range: LeafRange): NodeRef[] {
  const out: NodeRef[] = [];
  let lo = range.lo;
  while (lo < range.hi) {
    let level = 0;
    let width = 1;
    while (lo % (width * 2) === 0 && lo + width * 2 <= range.hi) {
      width *= 2;
      level += 1;
    }
    out.push({ level, index: lo / width });
    lo += width;
  }
  return out;
}

/** The audit path of leaf `index` in a tree of `size` leaves (RFC 6962 PATH), deepest sibling first. */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  checkSize(size, 'size');
  if (!Number.isSafeInteger(index) || index < 0 || index >= size)
    throw new ProofRangeError(`leaf index ${index} is not in a tree of ${size} entries (0 ≤ index < size)`);
  const out: LeafRange[] = [];
  const path = (m: number, lo: number, hi: number): void => {
    if (hi - lo <= 1) return;
    const k = splitPoint(hi - lo);
    if (m < k) {
      path(m, lo, lo + k);
      out.push({ lo: lo + k, hi });
    } else {
      path(m - k, lo + k, hi);
      out.push({ lo, hi: lo + k });
    }
  };
  path(index, 0, size);
  return out;
}

/** The consistency proof between sizes `from` and `to` (RFC 6962 PROOF); empty when they are equal. */
export function consistencyRanges(from: number, to: number): LeafRange[] {
  checkSize(from, 'from');
  checkSize(to, 'to');
  if (from < 1 || from > to) throw new ProofRangeError(`a consistency proof needs 1 ≤ from ≤ to, got from ${from}, to ${to}`);
  const out: LeafRange[] = [];
  const subproof = (m: number, lo: number, hi: number, whole: boolean): void => {
    const n = hi - lo;
    if (m === n) {
      if (!whole) out.push({ lo, hi });
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      subproof(m, lo, lo + k, whole);
      out.push({ lo: lo + k, hi });
    } else {
      subproof(m - k, lo + k, hi, false);
      out.push({ lo, hi: lo + k });
    }
  };
  if (from < to) subproof(from, 0, to, true);
  return out;
}

/** Plan the reads of `ranges`: every complete subtree they fold, each once. */
export function planReads(ranges: LeafRange[]): ProofPlan {
  const seen = new Map<string, NodeRef>();
  for (const range of ranges) {
    for (const node of completeSubtrees(range)) seen.set(`${node.level}/${node.index}`, node);
  }
  return { ranges, nodes: [...seen.values()] };
}

/** The hashes of the plan's ranges, from the hashes of its nodes (in `plan.nodes` order). */
export function assemble(plan: ProofPlan, hashes: readonly Buffer[]): Buffer[] {
  if (hashes.length !== plan.nodes.length) throw new Error(`assemble: ${hashes.length} hashes for ${plan.nodes.length} nodes`);
  const byNode = new Map<string, Buffer>();
  for (const [i, node] of plan.nodes.entries()) byNode.set(`${node.level}/${node.index}`, hashes[i]!);
  return plan.ranges.map((range) => {
    const parts = completeSubtrees(range).map((node) => byNode.get(`${node.level}/${node.index}`)!);
    let h = parts[parts.length - 1]!;
    for (let i = parts.length - 2; i >= 0; i--) h = nodeHash(parts[i]!, h);
    return h;
  });
}

function checkSize(n: number, name: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new ProofRangeError(`${name} must be a non-negative integer, got ${n}`);
}

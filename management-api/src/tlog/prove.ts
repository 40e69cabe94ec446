// Roots and proofs of a stored tree: plan the subtrees needed, read them in one batch, assemble.
import { assemble, consistencyRanges, inclusionRanges, planReads, type NodeRef } from './proof-plan.js';
import { EMPTY_ROOT } from './rfc6962.js';

/** Reads complete subtree hashes from wherever the tree is kept, in the order asked. */
export type ReadNodes = (nodes: NodeRef[]) => Promise<Buffer[]>;

/** An inclusion proof: the entry's leaf hash and its audit path, deepest sibling first. */
export interface InclusionProof {
  index: number;
  size: number;
  leafHash: Buffer;
  path: Buffer[];
}

/** A consistency proof between two sizes of the tree. */
export interface ConsistencyProof {
  from: number;
  to: number;
  path: Buffer[];
}

/** MTH of the first `size` leaves. */
export async function treeRoot(size: number, read: ReadNodes): Promise<Buffer> {
  if (size === 0) return EMPTY_ROOT;
  const plan = planReads([{ lo: 0, hi: size }]);
  return assemble(plan, await read(plan.nodes))[0]!;
}

/** The inclusion proof of leaf `index` in the tree of `size` leaves. */
export async function proveInclusion(index: number, size: number, read: ReadNodes): Promise<InclusionProof> {
  const plan = planReads([{ lo: index, hi: index + 1 }, ...inclusionRanges(index, size)]);
  const [leafHash, ...path] = assemble(plan, await read(plan.nodes));
  return { index, size, leafHash: leafHash!, path };
}

/** The consistency proof between the trees of `from` and `to` leaves. */
export async function proveConsistency(from: number, to: number, read: ReadNodes): Promise<ConsistencyProof> {
  const plan = planReads(consistencyRanges(from, to));
  return { from, to, path: plan.nodes.length ? assemble(plan, await read(plan.nodes)) : [] };
}

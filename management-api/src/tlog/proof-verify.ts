// Checking RFC 6962 proofs the way RFC 9162 §2.1.3.2 and §2.1.4.2 say: from the proof alone,
// without the tree.
import { nodeHash } from './rfc6962.js';

/** A proof that does not prove what it claims; the message says which check failed. */
export class ProofError extends Error {
  override name = 'ProofError';
}

const odd = (n: number): boolean => n % 2 === 1;
const half = (n: number): number => Math.floor(n / 2);

/** The root an inclusion proof leads to from `leaf` at `index` in a tree of `size`; throws ProofError when the proof has the wrong shape. */
export function rootFromInclusion(index: number, size: number, leaf: Buffer, proof: readonly Buffer[]): Buffer {
  if (!(index >= 0 && index < size)) throw new ProofError(`leaf index ${index} is not below the tree size ${size}`);
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) throw new ProofError('the inclusion proof is longer than the tree is deep');
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw new ProofError('the inclusion proof is shorter than the tree is deep');
  return r;
}

/** Check that `leaf` is entry `index` of the tree of `size` whose root is `root`. */
export function verifyInclusion(index: number, size: number, leaf: Buffer, proof: readonly Buffer[], root: Buffer): void {
  if (!rootFromInclusion(index, size, leaf, proof).equals(root))
    throw new ProofError(`the inclusion proof of entry ${index} does not lead to the root of the tree of ${size}`);
}

/** Check that the tree of size `from` with root `fromRoot` is a prefix of the tree of size `to` with root `toRoot`. */
export function verifyConsistency(from: number, to: number, fromRoot: Buffer, toRoot: Buffer, proof: readonly Buffer[]): void {
  if (!(from >= 1 && from <= to)) throw new ProofError(`a consistency proof needs 1 ≤ from ≤ to, got from ${from}, to ${to}`);
  if (from === to) {
    if (proof.length) throw new ProofError('a consistency proof between equal sizes must be empty');
    if (!fromRoot.equals(toRoot)) throw new ProofError(`two different roots for the same size ${from}`);
    return;
  }
  if (!proof.length) throw new ProofError('the consistency proof is empty');
  // A power-of-two old tree is a complete subtree of the new one: its root starts the path.
  const path = isPowerOfTwo(from) ? [fromRoot, ...proof] : [...proof];
  let fn = from - 1;
  let sn = to - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) throw new ProofError('the consistency proof is longer than the tree is deep');
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!odd(fn) && fn !== 0) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  if (sn !== 0) throw new ProofError('the consistency proof is shorter than the tree is deep');
  if (!fr.equals(fromRoot))
    throw new ProofError(`the consistency proof does not lead to the root of the tree of ${from}: the log was rewritten or the proof is not for it`);
  if (!sr.equals(toRoot)) throw new ProofError(`the consistency proof does not lead to the root of the tree of ${to}`);
}

function isPowerOfTwo(n: number): boolean {
  while (n > 1 && n % 2 === 0) n /= 2;
  return n === 1;
}

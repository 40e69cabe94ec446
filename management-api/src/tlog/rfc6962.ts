// RFC 6962 §2.1 hashing: leaves and interior nodes are hashed with distinct prefixes (0x00, 0x01).
import { createHash } from 'node:crypto';

/** SHA-256 output size: every hash of the tree is this long. */
export const HASH_SIZE = 32;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = createHash('sha256').digest();

/** The hash of one entry: SHA-256(0x00 || entry). */
export function leafHash(entry: Uint8Array): Buffer {
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

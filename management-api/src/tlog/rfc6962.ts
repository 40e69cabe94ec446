// RFC 6962 §2.1 hashing: leaves and interior nodes are hashed with distinct prefixes (0x00, 0x01).
import { hash } from 'node:crypto';

/** SHA-256 output size: every hash of the tree is this long. */
export const HASH_SIZE = 32;

/** MTH of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Buffer = hash('sha256', Buffer.alloc(0), 'buffer');

// One-shot hashing of one buffer that already holds the prefix: every appended event pays a leaf
// hash and, on average, one node hash, and a hash object per call costs about half as much again.

/** The hash of one entry: SHA-256(0x00 || entry). */
export function leafHash(entry: Uint8Array): Buffer {
  const input = Buffer.allocUnsafe(entry.length + 1);
  input[0] = 0x00;
  input.set(entry, 1);
  return hash('sha256', input, 'buffer');
}

/** The hash of an interior node: SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Buffer {
  const input = Buffer.allocUnsafe(1 + left.length + right.length);
  input[0] = 0x01;
  input.set(left, 1);
  input.set(right, 1 + left.length);
  return hash('sha256', input, 'buffer');
}

// Appending leaves to an RFC 6962 tree as a log writes them: each batch's stored hashes (the stored-hashes.ts layout) in one buffer.
import { hash } from 'node:crypto';
import { HASH_SIZE } from './rfc6962.js';

/** A digest as a string of one latin1 character per byte: Node names that encoding 'binary' here. */
const LATIN1 = 'binary';

/**
 * The right edge of a growing tree and the hashes each append adds. Every appended entry costs a
 * leaf hash and, on average, one node hash; this is the tree's whole cost on the log's write path.
 * Hashes are kept here as 32-character latin1 strings (one character per byte), never as Buffers:
 * a Buffer returned by each hash cost about as much as the SHA-256 itself, and a batch's hashes
 * become one Buffer at the end. A leaf of text is hashed from `'\0' + text`, whose UTF-8 encoding
 * is exactly 0x00 ‖ UTF-8(text). The result is byte for byte what `hashesToStore` gives
 * (tests/unit/tlog/tree-appender.test.ts holds them equal).
 */
export class TreeAppender {
  #size: number;
  /** frontier[level]: the last complete subtree at that level whose right sibling is missing. */
  readonly #frontier: string[];
  /** 0x01 ‖ left ‖ right, the input of a node hash, reused. */
  readonly #node = Buffer.allocUnsafe(1 + 2 * HASH_SIZE);

  /** Continue the tree of `size` entries whose frontier (by level, as stored) is `frontier`. */
  constructor(size: number, frontier: ReadonlyArray<Uint8Array | undefined>) {
    this.#size = size;
    this.#frontier = [];
    frontier.forEach((h, level) => {
      if (h) this.#frontier[level] = Buffer.from(h).toString('latin1');
    });
    this.#node[0] = 0x01;
  }

  /** Entries in the tree. */
  get size(): number {
    return this.#size;
  }

  /** Append entries given as text (hashed as UTF-8); the hashes to store after the existing ones, in order. */
  appendText(texts: readonly string[]): Buffer {
    let out = '';
    for (const text of texts) out += this.#add(hash('sha256', `\0${text}`, LATIN1));
    return Buffer.from(out, 'latin1');
  }

  /** Append entries given as bytes (as read back from the log); the hashes to store after the existing ones. */
  appendBytes(entries: readonly Uint8Array[]): Buffer {
    let out = '';
    for (const entry of entries) {
      const input = Buffer.allocUnsafe(entry.length + 1);
      input[0] = 0x00;
      input.set(entry, 1);
      out += this.#add(hash('sha256', input, LATIN1));
    }
    return Buffer.from(out, 'latin1');
  }

  /** Add one leaf hash; the leaf's hash and those of the subtrees it completes, concatenated. */
  #add(leaf: string): string {
    let out = leaf;
    let h = leaf;
    let level = 0;
    // The new leaf's index is `size`; each set low bit means a left sibling waits at that level.
    for (let i = this.#size; i % 2 === 1; i = Math.floor(i / 2)) {
      this.#node.write(this.#frontier[level]!, 1, HASH_SIZE, 'latin1');
      this.#node.write(h, 1 + HASH_SIZE, HASH_SIZE, 'latin1');
      h = hash('sha256', this.#node, LATIN1);
      out += h;
      level += 1;
    }
    this.#frontier[level] = h;
    this.#size += 1;
    return out;
  }
}

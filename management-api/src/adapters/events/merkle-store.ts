// The event log's Merkle tree on disk: one append-only file of 32-byte hashes in the stored-hash
// layout (each leaf, then the subtrees it completes), written after the lines it covers are
// durable, fsynced before a checkpoint is signed, read with positioned reads for roots and proofs.
import { readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Logger } from 'pino';
import { proveConsistency, proveInclusion, treeRoot, type ConsistencyProof, type InclusionProof, type ReadNodes } from '../../tlog/prove.js';
import { HASH_SIZE, leafHash } from '../../tlog/rfc6962.js';
import { frontierNodes, storedHashCount, storedHashIndex } from '../../tlog/stored-hashes.js';
import { TreeAppender } from '../../tlog/tree-appender.js';
import { ProofRangeError } from '../../tlog/proof-plan.js';
import { LogCorruptError } from './log-recovery.js';
import { storedLines, type LineSource } from './log-lines.js';

/** A size and root the store was signed at: the prefix the store may be trusted up to. */
export interface TrustedSize {
  size: number;
  root: Buffer;
}

/** How to open the store over a log. */
export interface MerkleStoreOptions {
  file: string;
  /** Entries in the log (its lines), and the segments to read them from. */
  entries: number;
  sources: readonly LineSource[];
  /** The last signed checkpoint, if any. */
  trusted?: TrustedSize;
  logger?: Logger;
}

/** The store cannot serve: a write failed; reopening the log rebuilds it. */
export class MerkleStoreError extends Error {
  override name = 'MerkleStoreError';
}

/**
 * The tree's hashes. `append` computes them at once (so `size` counts every durable entry) and
 * queues their write; reads wait for the writes first. The file is derived data: at open, only
 * the prefix a verified checkpoint covers is kept, and everything after it is hashed again from
 * the log's lines, so a crash between a line and its hash (or a hash written for nothing) is
 * repaired, never trusted.
 */
export class MerkleStore {
  readonly #tree: TreeAppender;
  #written: number;
  #writing: Promise<void> = Promise.resolve();
  #failed: Error | undefined;

  private constructor(
    private readonly handle: FileHandle,
    size: number,
    frontier: Buffer[],
  ) {
    this.#tree = new TreeAppender(size, frontier);
    this.#written = storedHashCount(size);
  }

  /** Open (or create) the store for the log, repairing what is past the trusted prefix. */
  static async open(options: MerkleStoreOptions): Promise<MerkleStore> {
    const handle = await open(options.file, 'a+', 0o600).then(async (h) => {
      await h.close();
      return open(options.file, 'r+');
    });
    try {
      const keep = await trustedPrefix(handle, options);
      await handle.truncate(storedHashCount(keep) * HASH_SIZE);
      const frontier: Buffer[] = [];
      const nodes = frontierNodes(keep);
      const hashes = await readHashes(
        handle,
        nodes.map((n) => storedHashIndex(n.level, n.index)),
      );
      for (const [i, n] of nodes.entries()) frontier[n.level] = hashes[i]!;
      const store = new MerkleStore(handle, keep, frontier);
      if (keep < options.entries) {
        await store.#rebuild(options.sources, keep, options.entries);
        options.logger?.info(
          { event: 'EventLogTreeRepaired', from: keep, to: options.entries },
          `hashed event log entries ${keep} to ${options.entries - 1} into the Merkle tree (past the last signed checkpoint)`,
        );
      }
      await handle.sync();
      return store;
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  /** Entries in the tree (every durable line). */
  get size(): number {
    return this.#tree.size;
  }

  /** Why the store cannot serve, when it cannot. */
  get failed(): Error | undefined {
    return this.#failed;
  }

  /** Add the lines (UTF-8 text without their newlines, in log order) and queue their hashes' write. */
  append(lines: readonly string[]): void {
    if (!lines.length || this.#failed) return;
    this.#queueWrite(this.#tree.appendText(lines));
  }

  /** Wait until every queued hash is written, then fsync the file (before a checkpoint covers them). */
  async sync(): Promise<void> {
    await this.#drained();
    await this.handle.sync();
  }

  /** MTH of the first `size` entries. */
  async root(size = this.size): Promise<Buffer> {
    this.#checkSize(size, 'size');
    return treeRoot(size, await this.#reader());
  }

  /** The inclusion proof of entry `index` in the tree of `size` entries. */
  async inclusion(index: number, size = this.size): Promise<InclusionProof> {
    this.#checkSize(size, 'size');
    return proveInclusion(index, size, await this.#reader());
  }

  /** The consistency proof between the trees of `from` and `to` entries. */
  async consistency(from: number, to = this.size): Promise<ConsistencyProof> {
    this.#checkSize(to, 'to');
    return proveConsistency(from, to, await this.#reader());
  }

  /** Finish the writes and release the file. */
  async close(): Promise<void> {
    await this.#writing;
    await this.handle.close().catch(() => undefined);
  }

  #checkSize(size: number, name: string): void {
    if (size > this.size) throw new ProofRangeError(`${name} ${size} is past the tree's ${this.size} entries`);
  }

  async #reader(): Promise<ReadNodes> {
    await this.#drained();
    return (nodes) =>
      readHashes(
        this.handle,
        nodes.map((n) => storedHashIndex(n.level, n.index)),
      );
  }

  async #drained(): Promise<void> {
    await this.#writing;
    if (this.#failed) throw this.#failed;
  }

  #queueWrite(buf: Buffer): void {
    const position = this.#written * HASH_SIZE;
    this.#written += buf.length / HASH_SIZE;
    this.#writing = this.#writing.then(async () => {
      if (this.#failed) return;
      try {
        await writeAt(this.handle, buf, position);
      } catch (err) {
        this.#failed = new MerkleStoreError(
          `writing the Merkle tree failed (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); the event log must be reopened`,
        );
      }
    });
  }

  async #rebuild(sources: readonly LineSource[], from: number, entries: number): Promise<void> {
    let batch: Uint8Array[] = [];
    for await (const line of storedLines(sources, from)) {
      if (line.index >= entries) break;
      batch.push(line.bytes);
      if (batch.length >= 16_384) {
        this.#queueWrite(this.#tree.appendBytes(batch));
        batch = [];
        await this.#drained();
      }
    }
    this.#queueWrite(this.#tree.appendBytes(batch));
    await this.#drained();
    if (this.size !== entries) throw new LogCorruptError(`the event log's segments hold ${this.size} lines where its last seq says ${entries}`);
  }
}

/**
 * How many entries of the stored tree can be kept: those a verified checkpoint covers, when the
 * stored hashes still give its root and the last entry it covers still hashes to the stored
 * leaf. A log shorter than a signed checkpoint, or changed at its edge, is refused.
 */
async function trustedPrefix(handle: FileHandle, options: MerkleStoreOptions): Promise<number> {
  const trusted = options.trusted;
  if (!trusted || trusted.size === 0) return 0;
  if (trusted.size > options.entries) {
    throw new LogCorruptError(
      `the event log holds ${options.entries} entries but its last signed checkpoint covers ${trusted.size}: entries were removed; restore the log from a backup (agentbox events verify --against names what is missing)`,
    );
  }
  const stored = Math.floor((await handle.stat()).size / HASH_SIZE);
  if (stored < storedHashCount(trusted.size)) return 0;
  const read: ReadNodes = (nodes) =>
    readHashes(
      handle,
      nodes.map((n) => storedHashIndex(n.level, n.index)),
    );
  if (!(await treeRoot(trusted.size, read)).equals(trusted.root)) {
    options.logger?.warn(
      { event: 'EventLogTreeRebuilt', size: trusted.size },
      'the stored Merkle tree does not give the last signed root; rebuilding it from the log',
    );
    return 0;
  }
  const [edge] = await readHashes(handle, [storedHashIndex(0, trusted.size - 1)]);
  for await (const line of storedLines(options.sources, trusted.size - 1)) {
    if (!leafHash(line.bytes).equals(edge!)) {
      throw new LogCorruptError(
        `event log entry ${trusted.size - 1} (seq ${trusted.size}) is not the one the last signed checkpoint covers: the log was rewritten; restore it from a backup (agentbox events verify --against names the first entry that differs)`,
      );
    }
    break;
  }
  return trusted.size;
}

/**
 * The hashes at `positions` (in hashes, not bytes) of the file. A proof reads at most about
 * 2·log2(n) of them, from the page cache: synchronous reads (a few µs each) cost less than as
 * many round trips through the thread pool, and keep a proof well under a millisecond.
 */
export async function readHashes(handle: FileHandle, positions: readonly number[]): Promise<Buffer[]> {
  return positions.map((p) => {
    const buf = Buffer.alloc(HASH_SIZE);
    const bytesRead = readSync(handle.fd, buf, 0, HASH_SIZE, p * HASH_SIZE);
    if (bytesRead !== HASH_SIZE) throw new MerkleStoreError(`the Merkle tree file ends before hash ${p}`);
    return buf;
  });
}

async function writeAt(handle: FileHandle, buf: Buffer, position: number): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset, position + offset);
    if (bytesWritten === 0) throw Object.assign(new Error('write made no progress'), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
}

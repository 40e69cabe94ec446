// The event log as a transparency log: its Merkle tree kept beside the segments, checkpoints
// signed at an interval (when the size changed) and at close, proofs served from the tree.
import path from 'node:path';
import { mkdir } from 'node:fs/promises';
import type { Logger } from 'pino';
import { AdapterInputError } from '../../adapter-errors.js';
import { ProofRangeError } from '../../tlog/proof-plan.js';
import type { LogCheckpoint, LogConsistencyProof, LogInclusionProof, LogKey } from './events-adapter.js';
import type { JsonlLog } from './jsonl-log.js';
import { LogCheckpoints, TLOG_FILES } from './log-checkpoints.js';
import { loadSigningKey } from './log-signing-key.js';
import { MerkleStore } from './merkle-store.js';

/** Where the key is and how often to sign. */
export interface TransparencySettings {
  /** The signing key file (0600, in the secrets directory). */
  keyFile: string;
  /** Milliseconds between checkpoints; one is signed only when the size changed. */
  checkpointIntervalMs: number;
}

/** The tree and checkpoints of one open log. */
export class TransparentLog {
  #timer: NodeJS.Timeout | undefined;
  #signing: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly tree: MerkleStore,
    private readonly checkpoints: LogCheckpoints,
    private readonly logger: Logger | undefined,
  ) {}

  /**
   * Open the tree of `log` (under `<dir>/tlog/`), repairing it past the last signed checkpoint,
   * sign a checkpoint when none covers the current size, and start the interval.
   */
  static async open(dir: string, log: JsonlLog, settings: TransparencySettings, logger?: Logger, clock?: () => Date): Promise<TransparentLog> {
    const tlogDir = path.join(dir, 'tlog');
    await mkdir(tlogDir, { recursive: true, mode: 0o700 });
    const signer = await loadSigningKey(settings.keyFile, logger);
    const checkpoints = await LogCheckpoints.open(tlogDir, signer, { ...(logger ? { logger } : {}), ...(clock ? { clock } : {}) });
    const latest = checkpoints.latest;
    const tree = await MerkleStore.open({
      file: path.join(tlogDir, TLOG_FILES.tree),
      entries: log.head.seq,
      sources: log.segments().flatMap((s) => (s.firstSeq === undefined ? [] : [{ path: s.path, firstIndex: s.firstSeq - 1, end: s.end }])),
      ...(latest ? { trusted: { size: latest.size, root: Buffer.from(latest.root, 'base64') } } : {}),
      ...(logger ? { logger } : {}),
    });
    const transparent = new TransparentLog(tree, checkpoints, logger);
    if (!latest || latest.size !== tree.size) await transparent.signIfChanged();
    transparent.#timer = setInterval(() => void transparent.signIfChanged().catch(() => undefined), settings.checkpointIntervalMs);
    transparent.#timer.unref();
    return transparent;
  }

  /** Add durable lines to the tree (JsonlLog's `onLines`). */
  append(lines: string[]): void {
    this.tree.append(lines);
  }

  /** Why proofs and checkpoints fail, when they do. */
  get failed(): Error | undefined {
    return this.tree.failed;
  }

  /** Sign a checkpoint for the current size unless the latest already covers it; one signing at a time. */
  signIfChanged(): Promise<LogCheckpoint | undefined> {
    const run = this.#signing.then(async () => {
      const size = this.tree.size;
      if (this.checkpoints.latest?.size === size) return undefined;
      // The hashes a checkpoint covers are on disk before it is: the next start trusts them.
      await this.tree.sync();
      const signed = await this.checkpoints.sign(size, await this.tree.root(size));
      this.logger?.debug({ event: 'EventLogCheckpointSigned', size, root: signed.root }, 'signed an event log checkpoint');
      return signed;
    });
    this.#signing = run.catch((err: unknown) => {
      this.logger?.error({ event: 'EventLogCheckpointFailed', err }, 'signing an event log checkpoint failed');
    });
    return run;
  }

  /** The latest checkpoint. */
  checkpoint(): LogCheckpoint {
    return this.checkpoints.latest!;
  }

  /** The log's origin and verifier key. */
  key(): LogKey {
    return { origin: this.checkpoints.origin, verifierKey: this.checkpoints.signer.verifierKey };
  }

  /** Inclusion proof of entry `index` in the tree of `size` (default: the latest checkpoint's). */
  async inclusion(index: number, size = this.checkpoint().size): Promise<LogInclusionProof> {
    const proof = await refusingBadRanges(() => this.tree.inclusion(index, size));
    return { index, size, leafHash: proof.leafHash.toString('base64'), path: proof.path.map((h) => h.toString('base64')) };
  }

  /** Consistency proof from `from` to `to` (default: the latest checkpoint's size). */
  async consistency(from: number, to = this.checkpoint().size): Promise<LogConsistencyProof> {
    const proof = await refusingBadRanges(() => this.tree.consistency(from, to));
    return { from, to, path: proof.path.map((h) => h.toString('base64')) };
  }

  /** Stop the interval, sign a last checkpoint if the size changed, release the tree (after the log is closed). */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.signIfChanged().catch(() => undefined);
    await this.tree.close();
  }
}

async function refusingBadRanges<T>(prove: () => Promise<T>): Promise<T> {
  try {
    return await prove();
  } catch (err) {
    if (err instanceof ProofRangeError) throw new AdapterInputError(err.message);
    throw err;
  }
}

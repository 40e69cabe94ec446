// events/local-jsonl: a hash-chained JSONL log on the state volume, fsynced by group commit, kept
// as an RFC 6962 Merkle tree with signed checkpoints (C2SP tlog-checkpoint).
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterUnavailableError } from '../../adapter-errors.js';
import type { EventFilter, EventsAdapter, LogCheckpoint, LogConsistencyProof, LogInclusionProof, LogKey, NewEvent, StoredEvent } from './events-adapter.js';
import { EventHub } from './event-hub.js';
import { checkEvents, checkQuery } from './event-input.js';
import { ioReason } from '../../durable-fs.js';
import { JsonlLog, LogUnusableError } from './jsonl-log.js';
import { EVENTS_PAGER, readPage } from './log-reader.js';
import { noMerkleTree } from './no-merkle-tree.js';
import { TransparentLog, type TransparencySettings } from './transparent-log.js';

/** This implementation's registry name. */
export const ADAPTER = 'events/local-jsonl';
export { CONTRACT_VERSION } from './events-adapter.js';

/** Segment size: large enough that rotation is rare, small enough that a query skips most of the log. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** File name prefix of the segments. */
export const LOG_PREFIX = 'events';

/** The signing key's file name in the secrets directory. */
export const LOG_KEY_FILE = 'event-log.key';

/** Seconds between checkpoints when the manifest does not say. */
export const DEFAULT_CHECKPOINT_INTERVAL_SEC = 60;

const NO_TREE = noMerkleTree('this log was opened without one');

/** Where and how the log is kept. */
export interface LocalJsonlOptions {
  dir: string;
  maxFileBytes?: number;
  logger?: Logger;
  clock?: () => Date;
  /** Keep the Merkle tree and sign checkpoints; without it the log is hash-chained only. */
  transparency?: TransparencySettings;
}

/** The local event sink. */
export class LocalJsonlEvents implements EventsAdapter {
  #log: JsonlLog | undefined;
  #tlog: TransparentLog | undefined;
  readonly #hub = new EventHub();

  constructor(private readonly options: LocalJsonlOptions) {}

  /**
   * (Re)open the log: releases a previous handle, discards a torn tail, finds the chain head, then
   * opens the Merkle tree (repairing it past the last signed checkpoint) and signs a checkpoint
   * when none covers the log yet.
   */
  async connect(signal: AbortSignal): Promise<void> {
    await this.#release();
    signal.throwIfAborted();
    let tlog: TransparentLog | undefined;
    const log = await JsonlLog.open({
      dir: this.options.dir,
      prefix: LOG_PREFIX,
      maxFileBytes: this.options.maxFileBytes ?? MAX_FILE_BYTES,
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      onDurable: (events) => this.#hub.publish(events),
      ...(this.options.transparency ? { onLines: (lines: string[]) => tlog?.append(lines) } : {}),
    });
    if (this.options.transparency) {
      try {
        tlog = await TransparentLog.open(this.options.dir, log, this.options.transparency, this.options.logger, this.options.clock);
      } catch (err) {
        await log.close();
        throw err;
      }
    }
    this.#log = log;
    this.#tlog = tlog;
  }

  /** Healthy while the log is open, has not failed a write it could not undo, and its directory is writable. */
  async health(): Promise<SlotHealth> {
    if (!this.#log) return { state: 'degraded', reason: 'not-open' };
    if (this.#log.unusable) return { state: 'degraded', reason: `write-failed: ${this.#log.unusable.message}` };
    if (this.#tlog?.failed) return { state: 'degraded', reason: `tree-write-failed: ${this.#tlog.failed.message}` };
    try {
      await access(this.options.dir, constants.W_OK);
    } catch (err) {
      return { state: 'degraded', reason: `not-writable: ${ioReason(err)}` };
    }
    return { state: 'healthy' };
  }

  /** Append; resolves once the events are fsynced. A failed write rejects with AdapterUnavailableError. */
  async append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    checkEvents(events);
    const log = this.#open();
    try {
      return await log.append(events);
    } catch (err) {
      throw new AdapterUnavailableError('events', err instanceof LogUnusableError ? err.message : `event log write failed: ${ioReason(err)}`, { cause: err });
    }
  }

  /** Events after the cursor matching the filter, oldest first. */
  async query(request: EventFilter & PageRequest): Promise<Page<StoredEvent>> {
    const { filter, limit, cursor } = checkQuery(request);
    const after = EVENTS_PAGER.decodeCursor(cursor);
    const log = this.#open();
    try {
      return await readPage(log.segments(), filter, after, limit);
    } catch (err) {
      throw new AdapterUnavailableError('events', `event log read failed: ${ioReason(err)}`, { cause: err });
    }
  }

  /** Events appended from now on that match the filter, until `signal` aborts. */
  async subscribe(filter: EventFilter, signal: AbortSignal): Promise<AsyncIterable<StoredEvent>> {
    const { filter: checked } = checkQuery(filter);
    this.#open();
    return this.#hub.subscribe(checked, signal);
  }

  /** The latest signed checkpoint. */
  async checkpoint(): Promise<LogCheckpoint> {
    const tlog = this.#tree();
    return tlog ? tlog.checkpoint() : NO_TREE.checkpoint();
  }

  /** A checkpoint of every entry appended so far (signed now unless the latest covers them). */
  async signCheckpoint(): Promise<LogCheckpoint> {
    const tlog = this.#tree();
    if (!tlog) return NO_TREE.signCheckpoint();
    await tlog.signIfChanged();
    return tlog.checkpoint();
  }

  /** Inclusion proof of entry `index` (seq − 1) in the tree of `size` entries. */
  async inclusionProof(index: number, size?: number): Promise<LogInclusionProof> {
    const tlog = this.#tree();
    return tlog ? tlog.inclusion(index, size) : NO_TREE.inclusionProof(index, size);
  }

  /** Consistency proof between the trees of `from` and `to` entries. */
  async consistencyProof(from: number, to?: number): Promise<LogConsistencyProof> {
    const tlog = this.#tree();
    return tlog ? tlog.consistency(from, to) : NO_TREE.consistencyProof(from, to);
  }

  /** The log's origin and verifier key. */
  async logKey(): Promise<LogKey> {
    const tlog = this.#tree();
    return tlog ? tlog.key() : NO_TREE.logKey();
  }

  /** End subscriptions, finish queued appends, sign a last checkpoint, release the files. */
  async close(): Promise<void> {
    this.#hub.close();
    await this.#release();
  }

  async #release(): Promise<void> {
    const log = this.#log;
    const tlog = this.#tlog;
    this.#log = undefined;
    this.#tlog = undefined;
    // The log first: its queued appends reach the tree before the last checkpoint is signed.
    await log?.close();
    await tlog?.close();
  }

  #tree(): TransparentLog | undefined {
    this.#open();
    return this.#tlog;
  }

  /** The chain head (last durable seq and hash, record it elsewhere to detect truncation) and the fsync rounds so far. */
  stats(): { seq: number; hash: string; flushes: number } | undefined {
    return this.#log && { seq: this.#log.head.seq, hash: this.#log.head.hash, flushes: this.#log.flushes };
  }

  #open(): JsonlLog {
    if (!this.#log) throw new AdapterUnavailableError('events', 'the event log is not open');
    return this.#log;
  }
}

/** Build the adapter over `<state>/events`, its signing key in the secrets directory. */
export function create(context: AdapterContext<'events'>): EventsAdapter {
  const transparency = {
    keyFile: path.join(context.paths.secretsDir, LOG_KEY_FILE),
    checkpointIntervalMs: (context.audit?.checkpoint_interval_sec ?? DEFAULT_CHECKPOINT_INTERVAL_SEC) * 1000,
  };
  return new LocalJsonlEvents({ dir: path.join(context.paths.stateDir, 'events'), logger: context.logger, transparency });
}

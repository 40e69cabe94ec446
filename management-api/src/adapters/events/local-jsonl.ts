// events/local-jsonl: a hash-chained JSONL log on the state volume, fsynced by group commit.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterUnavailableError } from '../../adapter-errors.js';
import type { EventFilter, EventsAdapter, NewEvent, StoredEvent } from './events-adapter.js';
import { EventHub } from './event-hub.js';
import { checkEvents, checkQuery } from './event-input.js';
import { ioReason } from './fs-durable.js';
import { JsonlLog, LogUnusableError } from './jsonl-log.js';
import { EVENTS_PAGER, readPage } from './log-reader.js';

/** This implementation's registry name. */
export const ADAPTER = 'events/local-jsonl';
export { CONTRACT_VERSION } from './events-adapter.js';

/** Segment size: large enough that rotation is rare, small enough that a query skips most of the log. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

/** File name prefix of the segments. */
export const LOG_PREFIX = 'events';

/** Where and how the log is kept. */
export interface LocalJsonlOptions {
  dir: string;
  maxFileBytes?: number;
  logger?: Logger;
  clock?: () => Date;
}

/** The local event sink. */
export class LocalJsonlEvents implements EventsAdapter {
  #log: JsonlLog | undefined;
  readonly #hub = new EventHub();

  constructor(private readonly options: LocalJsonlOptions) {}

  /** (Re)open the log: releases a previous handle, discards a torn tail, finds the chain head. */
  async connect(signal: AbortSignal): Promise<void> {
    const previous = this.#log;
    this.#log = undefined;
    await previous?.close();
    signal.throwIfAborted();
    this.#log = await JsonlLog.open({
      dir: this.options.dir,
      prefix: LOG_PREFIX,
      maxFileBytes: this.options.maxFileBytes ?? MAX_FILE_BYTES,
      ...(this.options.logger ? { logger: this.options.logger } : {}),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      onDurable: (events) => this.#hub.publish(events),
    });
  }

  /** Healthy while the log is open, has not failed a write it could not undo, and its directory is writable. */
  async health(): Promise<SlotHealth> {
    if (!this.#log) return { state: 'degraded', reason: 'not-open' };
    if (this.#log.unusable) return { state: 'degraded', reason: `write-failed: ${this.#log.unusable.message}` };
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

  /** End subscriptions, finish queued appends, release the file. */
  async close(): Promise<void> {
    this.#hub.close();
    const log = this.#log;
    this.#log = undefined;
    await log?.close();
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

/** Build the adapter over `<state>/events`. */
export function create(context: AdapterContext<'events'>): EventsAdapter {
  return new LocalJsonlEvents({ dir: path.join(context.paths.stateDir, 'events'), logger: context.logger });
}

// Delivers a spool to an HTTP sink in order: batched POSTs, retry with backoff, a durable cursor.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { Backoff } from '../backoff.js';
import { authHeaders } from '../http-client/http-call.js';
import type { StoredEvent } from './events-adapter.js';
import { replaceFileDurably } from '../../durable-fs.js';
import type { JsonlLog } from './jsonl-log.js';
import { backlogBytes, readSpool, type SpoolPosition } from './spool-reader.js';

/** How the forwarder reaches the sink and sizes its batches. */
export interface ForwarderOptions {
  spool: JsonlLog;
  /** File holding the last delivered seq. */
  cursorFile: string;
  url: string;
  token: string | undefined;
  timeoutMs: number;
  batchEvents: number;
  batchBytes: number;
  retryInitialMs: number;
  retryMaxMs: number;
  logger?: Logger;
}

/** A sink answer that retrying will not change by itself (bad request, refused credentials). */
export class SinkRejectedError extends Error {
  override name = 'SinkRejectedError';
}

/**
 * One loop per spool: read the next batch after the delivered cursor, POST it as
 * `{"events": [...]}`, and only on a 2xx advance (and fsync) the cursor and drop delivered
 * segments. Any failure keeps the batch and retries it with backoff, so delivery is in order and
 * at least once; sinks de-duplicate by event `id`.
 */
export class SinkForwarder {
  #delivered = 0;
  #position: SpoolPosition = { segment: 0, offset: 0 };
  #stopped = false;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #failing: string | undefined;
  #rejecting: string | undefined;
  readonly #abort = new AbortController();
  readonly #backoff: Backoff;

  constructor(private readonly options: ForwarderOptions) {
    this.#backoff = new Backoff(options.retryInitialMs, options.retryMaxMs);
  }

  /** Load the cursor and start delivering. */
  async start(): Promise<void> {
    this.#delivered = await readCursor(this.options.cursorFile, this.options.logger);
    this.#loop = this.#run();
  }

  /** New events are durable in the spool: deliver them. */
  notify(): void {
    this.#wake?.();
  }

  /** The last seq the sink accepted. */
  get delivered(): number {
    return this.#delivered;
  }

  /** Bytes spooled but not yet delivered. */
  get backlog(): number {
    return backlogBytes(this.options.spool.segments(), this.#position);
  }

  /** Why the sink keeps refusing batches (a 4xx), when it does. */
  get rejecting(): string | undefined {
    return this.#rejecting;
  }

  /** Stop after the request in flight (aborted) and wait for the loop. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#abort.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let delay = 0;
      try {
        const batch = await readSpool(this.options.spool.segments(), this.#position, this.#delivered, this.options.batchEvents, this.options.batchBytes);
        if (!batch.events.length) {
          this.#position = batch.next;
          await this.#sleep(Infinity, true);
          continue;
        }
        await this.#post(batch.events);
        this.#delivered = batch.events[batch.events.length - 1]!.seq;
        this.#position = batch.next;
        await replaceFileDurably(this.options.cursorFile, `${JSON.stringify({ delivered: this.#delivered })}\n`);
        await this.options.spool.prune(this.#delivered);
        this.#recovered();
      } catch (err) {
        if (this.#stopped) break;
        this.#failed(err as Error);
        delay = this.#backoff.next();
      }
      // New appends do not cut a retry delay short: a down sink is not hammered under load.
      if (delay) await this.#sleep(delay, false);
    }
  }

  async #post(events: StoredEvent[]): Promise<void> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), this.#abort.signal]);
    const response = await fetch(this.options.url, {
      method: 'POST',
      headers: authHeaders(this.options.token, true),
      body: JSON.stringify({ events }),
      signal,
    });
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return;
    const what = `the sink answered ${response.status}`;
    // 408 and 429 are "try later"; any other 4xx will not change by retrying alone.
    if (response.status < 500 && response.status !== 408 && response.status !== 429) throw new SinkRejectedError(what);
    throw new Error(what);
  }

  #failed(err: Error): void {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    const reason = err.name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : cause ? `cannot reach the sink: ${cause}` : err.message;
    this.#rejecting = err instanceof SinkRejectedError ? reason : undefined;
    if (this.#failing === reason) return;
    this.#failing = reason;
    // Logged once per outage, not once per retry; the events stay spooled.
    this.options.logger?.warn(
      { event: 'EventsSinkFailing', reason, backlogBytes: this.backlog, delivered: this.#delivered },
      `delivering events to the sink failed (${reason}); they stay spooled and are retried`,
    );
  }

  #recovered(): void {
    this.#backoff.reset();
    this.#rejecting = undefined;
    if (this.#failing === undefined) return;
    this.#failing = undefined;
    this.options.logger?.info({ event: 'EventsSinkRestored', delivered: this.#delivered }, 'the events sink accepts deliveries again');
  }

  /** Sleep `ms` (forever: until notified); `stop()` always ends it, `notify()` only when `wakeable`. */
  #sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        this.#abort.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, ms) : undefined;
      timer?.unref();
      if (wakeable) this.#wake = done;
      this.#abort.signal.addEventListener('abort', done, { once: true });
    });
  }
}

/** The delivered seq; an unreadable cursor restarts from the oldest spooled event (duplicates, never loss). */
async function readCursor(file: string, logger?: Logger): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  try {
    const value = (JSON.parse(text) as { delivered?: unknown }).delivered;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  } catch {
    // Reported below.
  }
  logger?.warn({ event: 'EventsSpoolCursorUnreadable', file }, 'the delivery cursor is unreadable; redelivering every spooled event');
  return 0;
}

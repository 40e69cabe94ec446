// An append-only, hash-chained JSONL log with group-commit fsync and rotation by size.
import { randomUUID } from 'node:crypto';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { NewEvent, StoredEvent } from './events-adapter.js';
import { syncDirectory, writeAll } from '../../durable-fs.js';
import { encodeLine, type ChainHead } from './hash-chain.js';
import { segmentName } from './log-files.js';
import { recoverLog, type Segment } from './log-recovery.js';

/** How a log is laid out and sized. */
export interface JsonlLogOptions {
  dir: string;
  /** File name prefix: segments are `<prefix>-000001.jsonl`, … */
  prefix: string;
  /** A segment that would grow past this many bytes is closed and a new one started. */
  maxFileBytes: number;
  clock?: () => Date;
  logger?: Logger;
  /** Called with every batch once it is durable, in append order. */
  onDurable?: (events: StoredEvent[]) => void;
  /** Called first with the batch's lines as stored (without their newlines), once durable: the Merkle tree's leaves. */
  onLines?: (lines: string[]) => void;
}

/** The log is closed, or a failed write left it in a state it cannot append from. */
export class LogUnusableError extends Error {
  override name = 'LogUnusableError';
}

interface Pending {
  text: string;
  /** The lines of `text` without their newlines, kept only for `onLines`. */
  lines: string[] | undefined;
  events: StoredEvent[];
  /** The chain head once this append is written. */
  head: ChainHead;
  resolve: (events: StoredEvent[]) => void;
  reject: (err: unknown) => void;
}

// One write per batch, bounded so a burst does not build one huge buffer.
const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/**
 * The writer. Appends are chained in memory at once (so order is call order), queued, and
 * written by one flush loop: each round writes everything queued in a single write and one
 * fdatasync, then resolves those appends. Appends arriving during an fsync join the next round
 * — group commit: one fsync serves many appends, and no append resolves before its bytes are on disk.
 */
export class JsonlLog {
  #segments: Segment[];
  #handle: FileHandle;
  #head: ChainHead;
  #durable: ChainHead;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #unusable: Error | undefined;
  #closed: Error | undefined;
  #flushes = 0;
  readonly #clock: () => Date;

  private constructor(
    private readonly options: JsonlLogOptions,
    recovered: { segments: Segment[]; handle: FileHandle; head: ChainHead },
  ) {
    this.#segments = recovered.segments;
    this.#handle = recovered.handle;
    this.#head = recovered.head;
    this.#durable = recovered.head;
    this.#clock = options.clock ?? (() => new Date());
  }

  /** Open (or create) the log, discarding a torn tail left by a crash. */
  static async open(options: JsonlLogOptions): Promise<JsonlLog> {
    return new JsonlLog(options, await recoverLog(options.dir, options.prefix, options.logger));
  }

  /** The last durable event's position. */
  get head(): ChainHead {
    return { ...this.#durable };
  }

  /** Completed write+fsync rounds since opening: fewer than appends when group commit batches them. */
  get flushes(): number {
    return this.#flushes;
  }

  /** Why appends are refused, when they are. */
  get unusable(): Error | undefined {
    return this.#unusable ?? this.#closed;
  }

  /** A snapshot of the segments with their durable extent, oldest first. */
  segments(): Segment[] {
    return this.#segments.map((s) => ({ ...s }));
  }

  /** Append events; resolves with them (seq, id, time assigned) once they are fsynced. */
  append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    const refused = this.#unusable ?? this.#closed;
    if (refused) return Promise.reject(refused);
    if (!events.length) return Promise.resolve([]);
    const stored: StoredEvent[] = [];
    const lines = this.options.onLines ? ([] as string[]) : undefined;
    let text = '';
    for (const e of events) {
      const now = this.#clock().toISOString();
      // Times never go backwards, so time ranges map onto contiguous seq ranges.
      // biome-ignore lint/complexity/useMathMinMax: ISO-8601 strings, compared as strings (Math.max would make them numbers).
      const time = now > this.#head.time ? now : this.#head.time;
      const event: StoredEvent = { id: randomUUID(), seq: this.#head.seq + 1, time, kind: e.kind, source: e.source, data: e.data ?? {} };
      const { line, hash } = encodeLine(this.#head.hash, event);
      this.#head = { seq: event.seq, hash, time };
      text += line;
      lines?.push(line.slice(0, -1));
      stored.push(event);
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ text, lines, events: stored, head: { ...this.#head }, resolve, reject });
      this.#kick();
    });
  }

  /**
   * Delete closed segments all of whose events have seq <= `seq` (a spool drops what it has
   * delivered). The active segment is kept: it carries the chain head. Returns how many went.
   */
  async prune(seq: number): Promise<number> {
    let removed = 0;
    while (this.#segments.length > 1) {
      const next = this.#segments[1]!;
      if (next.firstSeq === undefined || next.firstSeq - 1 > seq) break;
      await unlink(this.#segments[0]!.path);
      this.#segments.shift();
      removed += 1;
    }
    return removed;
  }

  /** Wait for queued appends, then release the file. Later appends reject. */
  async close(): Promise<void> {
    this.#closed ??= new LogUnusableError('the event log is closed');
    while (this.#flushing) await this.#flushing;
    await this.#handle.close().catch(() => undefined);
  }

  #kick(): void {
    if (this.#flushing) return;
    this.#flushing = this.#flushLoop().finally(() => {
      this.#flushing = undefined;
      // An append may have queued between the loop's last check and this callback.
      if (this.#queue.length) this.#kick();
    });
  }

  async #flushLoop(): Promise<void> {
    while (this.#queue.length) {
      // Appends queued while a failure was being handled must not be written after it.
      if (this.#unusable) {
        for (const p of this.#queue.splice(0)) p.reject(this.#unusable);
        return;
      }
      // Small segments get small batches, so rotation keeps files near their size limit.
      const cap = Math.min(MAX_BATCH_BYTES, this.options.maxFileBytes);
      let bytes = 0;
      let count = 0;
      while (count < this.#queue.length && (count === 0 || bytes < cap)) bytes += Buffer.byteLength(this.#queue[count++]!.text);
      const batch = this.#queue.splice(0, count);
      const buf = Buffer.from(batch.map((p) => p.text).join(''), 'utf8');
      let stage = 'write';
      try {
        const active = this.#segments[this.#segments.length - 1]!;
        if (active.end > 0 && active.end + buf.length > this.options.maxFileBytes) await this.#rotate(active);
        await writeAll(this.#handle, buf);
        stage = 'fsync';
        await this.#handle.datasync();
      } catch (err) {
        await this.#failed(err, stage, batch);
        continue;
      }
      this.#commit(batch, buf.length);
    }
  }

  #commit(batch: Pending[], bytes: number): void {
    const active = this.#segments[this.#segments.length - 1]!;
    const events = batch.flatMap((p) => p.events);
    if (active.firstSeq === undefined) Object.assign(active, { firstSeq: events[0]!.seq, firstTime: events[0]!.time });
    active.end += bytes;
    this.#flushes += 1;
    this.#durable = batch[batch.length - 1]!.head;
    if (this.options.onLines) this.options.onLines(batch.flatMap((p) => p.lines ?? []));
    this.options.onDurable?.(events);
    for (const p of batch) p.resolve(p.events);
  }

  /**
   * A write or fsync failed: reject this batch and everything queued behind it (their lines chain
   * onto the failed ones), rewind the chain to the last durable line and cut the file back to it.
   * After a failed fsync the page cache cannot be trusted, so the log refuses appends until reopened.
   */
  async #failed(err: unknown, stage: string, batch: Pending[]): Promise<void> {
    const rejected = [...batch, ...this.#queue.splice(0)];
    this.#head = { ...this.#durable };
    const active = this.#segments[this.#segments.length - 1]!;
    try {
      if (stage === 'fsync') throw err;
      await this.#handle.truncate(active.end);
    } catch {
      this.#unusable = new LogUnusableError(`the event log cannot be appended to after a failed ${stage}; it must be reopened`);
    }
    this.options.logger?.error(
      { event: 'EventLogWriteFailed', err, stage, events: rejected.reduce((n, p) => n + p.events.length, 0) },
      'writing to the event log failed; the appends were rejected',
    );
    for (const p of rejected) p.reject(err);
  }

  async #rotate(active: Segment): Promise<void> {
    const next: Segment = { number: active.number + 1, path: path.join(this.options.dir, segmentName(this.options.prefix, active.number + 1)), end: 0 };
    const handle = await open(next.path, 'a+', 0o600);
    await syncDirectory(this.options.dir).catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    const previous = this.#handle;
    this.#handle = handle;
    this.#segments.push(next);
    await previous.close().catch(() => undefined);
  }
}

// Live subscriptions: durable events fanned out to subscribers, each with a bounded buffer.
import type { EventFilter, StoredEvent } from './events-adapter.js';
import { matches } from './log-reader.js';

/** A subscriber fell too far behind; it should resubscribe and catch up by query from its last seq. */
export class SubscriberOverflowError extends Error {
  override name = 'SubscriberOverflowError';
  constructor(
    readonly lastSeq: number,
    limit: number,
  ) {
    super(`the subscriber fell more than ${limit} events behind after seq ${lastSeq}; query from there and subscribe again`);
  }
}

interface Subscriber {
  filter: EventFilter;
  queue: StoredEvent[];
  head: number;
  lastSeq: number;
  error?: Error;
  ended: boolean;
  wake?: () => void;
}

/**
 * Fan-out of appended events. Publishing never waits for a subscriber: each has its own queue,
 * and one that lets `maxBuffered` events pile up is ended with SubscriberOverflowError rather
 * than growing without bound or slowing the writers.
 */
export class EventHub {
  readonly #subscribers = new Set<Subscriber>();

  constructor(private readonly maxBuffered = 10_000) {}

  /** Number of live subscriptions (for tests and health). */
  get size(): number {
    return this.#subscribers.size;
  }

  /** Deliver durable events to every subscriber whose filter they match. */
  publish(events: readonly StoredEvent[]): void {
    for (const sub of this.#subscribers) {
      for (const e of events) {
        if (!matches(e, sub.filter)) continue;
        if (sub.queue.length - sub.head >= this.maxBuffered) {
          this.#end(sub, new SubscriberOverflowError(sub.lastSeq, this.maxBuffered));
          break;
        }
        sub.queue.push(e);
      }
      sub.wake?.();
    }
  }

  /** A live subscription: registered before this returns, ended when `signal` aborts or the hub closes. */
  subscribe(filter: EventFilter, signal: AbortSignal): AsyncIterable<StoredEvent> {
    const sub: Subscriber = { filter, queue: [], head: 0, lastSeq: 0, ended: false };
    if (signal.aborted) sub.ended = true;
    else this.#subscribers.add(sub);
    signal.addEventListener('abort', () => this.#end(sub), { once: true });
    return { [Symbol.asyncIterator]: () => this.#iterate(sub) };
  }

  /** End every subscription (their iterations finish normally). */
  close(): void {
    for (const sub of this.#subscribers) this.#end(sub);
  }

  #end(sub: Subscriber, error?: Error): void {
    this.#subscribers.delete(sub);
    sub.ended = true;
    if (error) sub.error = error;
    sub.wake?.();
  }

  async *#iterate(sub: Subscriber): AsyncGenerator<StoredEvent> {
    try {
      for (;;) {
        while (sub.head < sub.queue.length && !sub.error) {
          const e = sub.queue[sub.head++]!;
          sub.lastSeq = e.seq;
          yield e;
        }
        // Reclaim the consumed prefix now and then instead of shifting on every event.
        if (sub.head > 1024) {
          sub.queue.splice(0, sub.head);
          sub.head = 0;
        }
        if (sub.error) throw sub.error;
        if (sub.ended) return;
        await new Promise<void>((resolve) => (sub.wake = resolve));
        sub.wake = undefined;
      }
    } finally {
      this.#subscribers.delete(sub);
    }
  }
}

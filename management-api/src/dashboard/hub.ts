// One per app: builds topic snapshots on change notifications and on a shared once-a-second check, and sends each open dashboard stream only what changed.
import type { Logger } from 'pino';
import type { DashboardMetrics } from './metrics.js';
import type { SnapshotProducer, Topic } from './snapshots.js';

/** How often the shared check samples what has no change notification (usage, programmes, other writers). */
export const SAMPLE_MS = 1_000;

/** One open stream. */
export interface Subscriber {
  topics: ReadonlySet<Topic>;
  /** Write one message; the hub never passes the same JSON twice in a row for a topic. */
  write(topic: Topic, json: string): void;
  /** End the stream (the app is closing). */
  end(): void;
}

interface Entry {
  subscriber: Subscriber;
  /** The last JSON sent to this stream, per topic. */
  sent: Map<Topic, string>;
}

/**
 * Snapshots are built once per app, never per stream: N open pages cost one build per change.
 * Builds run one batch at a time; notifications arriving meanwhile are merged into the next batch.
 * The sampling timer runs only while a stream is open, and is unref'd.
 */
export class DashboardHub {
  readonly #entries = new Map<Subscriber, Entry>();
  readonly #last = new Map<Topic, string>();
  readonly #pending = new Set<Topic>();
  #running: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly options: { produce: SnapshotProducer; logger: Logger; metrics: DashboardMetrics; sampleMs?: number }) {}

  /** Open a stream: it gets every topic's current snapshot, then each change. */
  async add(subscriber: Subscriber): Promise<void> {
    if (this.#closed) return subscriber.end();
    const entry: Entry = { subscriber, sent: new Map() };
    this.#entries.set(subscriber, entry);
    this.options.metrics.streams.set(this.#entries.size);
    this.#timer ??= setInterval(() => {
      if (!this.#running) void this.refresh(this.#subscribed());
    }, this.options.sampleMs ?? SAMPLE_MS).unref();
    await this.refresh(subscriber.topics);
    // The batch above broadcast what changed; this sends what had not changed since the last build.
    for (const topic of subscriber.topics) {
      const json = this.#last.get(topic);
      if (json !== undefined && this.#entries.has(subscriber)) deliver(entry, topic, json);
    }
  }

  /** A stream went away. The last one stops the sampling. */
  remove(subscriber: Subscriber): void {
    if (!this.#entries.delete(subscriber)) return;
    this.options.metrics.streams.set(this.#entries.size);
    if (this.#entries.size === 0) this.#stopSampling();
  }

  /** Something behind `topic` changed (a mutation through the API, a readiness or slot change): rebuild it now. */
  changed(...topics: Topic[]): void {
    const wanted = topics.filter((t) => this.#subscribed().has(t));
    if (wanted.length > 0) void this.refresh(wanted);
  }

  /** Rebuild `topics` and send those whose JSON differs; resolves once they are built. */
  refresh(topics: Iterable<Topic>): Promise<void> {
    for (const t of topics) this.#pending.add(t);
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** End every stream and stop sampling (the app is closing). */
  close(): void {
    this.#closed = true;
    this.#stopSampling();
    for (const subscriber of [...this.#entries.keys()]) subscriber.end();
    this.#entries.clear();
    this.options.metrics.streams.set(0);
  }

  async #drain(): Promise<void> {
    while (this.#pending.size > 0 && !this.#closed) {
      const batch = [...this.#pending];
      this.#pending.clear();
      const subscribed = this.#subscribed();
      for (const topic of batch) {
        if (!subscribed.has(topic)) continue;
        let json: string;
        try {
          json = JSON.stringify(await this.options.produce(topic));
        } catch (err) {
          this.options.logger.warn(
            { err, event: 'DashboardSnapshotFailed', topic },
            `the dashboard's ${topic} snapshot failed; it is tried again at the next check`,
          );
          continue;
        }
        if (this.#last.get(topic) === json) continue;
        this.#last.set(topic, json);
        for (const entry of this.#entries.values()) if (entry.subscriber.topics.has(topic)) deliver(entry, topic, json);
      }
    }
  }

  #subscribed(): Set<Topic> {
    const topics = new Set<Topic>();
    for (const { subscriber } of this.#entries.values()) for (const t of subscriber.topics) topics.add(t);
    return topics;
  }

  #stopSampling(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    // Nothing watches: the next stream starts from fresh builds.
    this.#last.clear();
  }
}

function deliver(entry: Entry, topic: Topic, json: string): void {
  if (entry.sent.get(topic) === json) return;
  entry.sent.set(topic, json);
  entry.subscriber.write(topic, json);
}

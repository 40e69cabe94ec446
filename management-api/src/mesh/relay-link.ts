// One relay the box publishes to: a kept-open connection (reconnected with backoff), a bounded
// queue of signed events, and a drain that retries each event before giving up on it.
import WebSocket from 'ws';
import type { Logger } from 'pino';
import { AbstractRelay } from 'nostr-tools/abstract-relay';
import { verifyEvent, type VerifiedEvent } from 'nostr-tools/pure';
import { Backoff } from '../adapters/backoff.js';
import type { MeshMetrics } from './mesh-metrics.js';

/** Timings and bounds of a link; tests shorten them. */
export interface RelayLinkTiming {
  connectTimeoutMs: number;
  /** Wait for the relay's OK before a publish counts as failed. */
  publishTimeoutMs: number;
  retryInitialMs: number;
  retryMaxMs: number;
  /** Events waiting per relay; when full the oldest is dropped (counted). */
  queueLimit: number;
  /** Tries per event on a connected relay before it is dropped (counted as `rejected`). */
  maxAttempts: number;
}

/** Defaults: 5 s to connect or to get an OK, retries from 1 s up to 60 s, 1,000 queued, 5 tries. */
export const DEFAULT_LINK_TIMING: RelayLinkTiming = {
  connectTimeoutMs: 5_000,
  publishTimeoutMs: 5_000,
  retryInitialMs: 1_000,
  retryMaxMs: 60_000,
  queueLimit: 1_000,
  maxAttempts: 5,
};

/**
 * ws emits 'error' after nostr-tools has detached its handler when a connection attempt is
 * abandoned (timeout, close while connecting); a listener of our own keeps that from being an
 * uncaught exception. Failures still reach nostr-tools through `onerror` while it listens.
 */
class ListenedWebSocket extends WebSocket {
  constructor(url: string) {
    super(url);
    this.on('error', () => undefined);
  }
}

interface QueuedEvent {
  event: VerifiedEvent;
  attempts: number;
}

/** A relay connection with its queue. `onChange` fires when reachability flips. */
export class RelayLink {
  readonly #queue: QueuedEvent[] = [];
  readonly #reconnect: Backoff;
  readonly #retry: Backoff;
  #relay: AbstractRelay | undefined;
  #reachable = false;
  #draining = false;
  #closed = false;
  #connecting = false;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #retryTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly url: string,
    private readonly deps: { logger: Logger; metrics: MeshMetrics; timing: RelayLinkTiming; onChange: () => void },
  ) {
    this.#reconnect = new Backoff(deps.timing.retryInitialMs, deps.timing.retryMaxMs);
    this.#retry = new Backoff(deps.timing.retryInitialMs, deps.timing.retryMaxMs);
    deps.metrics.queueLength.set({ relay: url }, 0);
    deps.metrics.relayUp.set({ relay: url }, 0);
  }

  /** Whether the relay is connected now. */
  get reachable(): boolean {
    return this.#reachable;
  }

  /** Events waiting for this relay. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Start connecting (and keep reconnecting). */
  start(): void {
    void this.#connect();
  }

  /** Queue `event`; when the queue is full the oldest waiting event is dropped. */
  enqueue(event: VerifiedEvent): void {
    if (this.#closed) return;
    if (this.#queue.length >= this.deps.timing.queueLimit) {
      this.#queue.shift();
      this.deps.metrics.dropped.inc({ relay: this.url, reason: 'queue-full' });
    }
    this.#queue.push({ event, attempts: 0 });
    this.deps.metrics.queueLength.set({ relay: this.url }, this.#queue.length);
    void this.#drain();
  }

  /** Stop: close the connection, cancel timers; queued events are abandoned. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#reconnectTimer);
    clearTimeout(this.#retryTimer);
    // A connection still being set up is closed when its attempt settles (see #connect).
    if (!this.#connecting) this.#relay?.close();
    this.#setReachable(false);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const relay = new AbstractRelay(this.url, {
      verifyEvent,
      websocketImplementation: ListenedWebSocket as unknown as typeof globalThis.WebSocket,
      enablePing: true,
    });
    relay.publishTimeout = this.deps.timing.publishTimeoutMs;
    relay.onnotice = (msg) => this.deps.logger.debug({ event: 'RelayNotice', relay: this.url, notice: msg }, 'relay notice');
    this.#connecting = true;
    try {
      await relay.connect({ timeout: this.deps.timing.connectTimeoutMs });
    } catch (err) {
      this.#lost(relay, typeof err === 'string' ? err : ((err as Error).message ?? String(err)));
      return;
    } finally {
      this.#connecting = false;
    }
    if (this.#closed) return relay.close();
    this.#relay = relay;
    relay.onclose = () => this.#lost(relay, 'connection closed');
    this.#reconnect.reset();
    this.deps.logger.info({ event: 'RelayConnected', relay: this.url }, `connected to relay ${this.url}`);
    this.#setReachable(true);
    void this.#drain();
  }

  #lost(relay: AbstractRelay, reason: string): void {
    if (this.#closed || (this.#relay !== undefined && this.#relay !== relay)) return;
    this.#relay = undefined;
    const wasReachable = this.#reachable;
    this.#setReachable(false);
    const delay = this.#reconnect.next();
    this.deps.logger[wasReachable ? 'warn' : 'debug'](
      { event: 'RelayUnreachable', relay: this.url, reason, retryInMs: delay },
      `relay ${this.url} unreachable (${reason}); retrying in ${delay} ms`,
    );
    this.#reconnectTimer = setTimeout(() => void this.#connect(), delay).unref();
  }

  #setReachable(reachable: boolean): void {
    if (reachable === this.#reachable) return;
    this.#reachable = reachable;
    this.deps.metrics.relayUp.set({ relay: this.url }, reachable ? 1 : 0);
    this.deps.onChange();
  }

  /** Publish queued events in order while connected; failed ones are retried with backoff. */
  async #drain(): Promise<void> {
    if (this.#draining) return;
    this.#draining = true;
    try {
      for (let item = this.#queue[0]; item && this.#relay && !this.#closed; item = this.#queue[0]) {
        const relay = this.#relay;
        try {
          await relay.publish(item.event);
          this.#retry.reset();
          this.#settle(item);
          this.deps.metrics.published.inc({ relay: this.url });
        } catch (err) {
          // Lost the connection: keep the event for the next one, without spending a try.
          if (!relay.connected || this.#relay !== relay) break;
          item.attempts += 1;
          if (item.attempts >= this.deps.timing.maxAttempts) {
            this.#settle(item);
            this.deps.metrics.dropped.inc({ relay: this.url, reason: 'rejected' });
            this.deps.logger.warn(
              { event: 'AgentEventDropped', relay: this.url, id: item.event.id, reason: (err as Error).message },
              `relay ${this.url} did not accept event ${item.event.id} after ${item.attempts} tries`,
            );
            continue;
          }
          // Abandoned (never resolved) if the link closes meanwhile: nothing else waits on it.
          await new Promise((resolve) => (this.#retryTimer = setTimeout(resolve, this.#retry.next()).unref()));
        }
      }
    } finally {
      this.#draining = false;
    }
  }

  #settle(item: QueuedEvent): void {
    const at = this.#queue.indexOf(item);
    if (at >= 0) this.#queue.splice(at, 1);
    this.deps.metrics.queueLength.set({ relay: this.url }, this.#queue.length);
  }
}

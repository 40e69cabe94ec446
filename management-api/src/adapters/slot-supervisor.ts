// One slot's life: first connect, periodic health re-probe, degradation, background reconnect.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { AdapterLifecycle, SlotHealth, SlotName } from './adapter.js';
import { Backoff, DeadlineError, withDeadline } from './backoff.js';
import { scrubSecrets } from '../secrets/redact.js';
import type { SlotState } from './slot-state.js';

export type { SlotState } from './slot-state.js';

/** A slot as /health, /ready and /v1/meta report it. */
export interface SlotStatus {
  slot: SlotName;
  /** The manifest's choice, e.g. `local-sqlite`. */
  impl: string;
  /** The module that implements it, `<slot>/<impl>`. */
  adapter: string;
  contractVersion: string;
  critical: boolean;
  state: SlotState;
  reason?: string;
  /** When the slot entered its current state (ISO-8601). */
  since: string;
}

/** Timeouts and intervals of the resolver, in milliseconds. */
export interface ResolverTiming {
  /** Deadline of each connect() (manifest `adapters.connect_timeout_sec`). */
  connectTimeoutMs: number;
  /** How often healthy slots are re-probed. */
  healthIntervalMs: number;
  /** Deadline of each health(). */
  healthTimeoutMs: number;
  /** First and longest delay between reconnect attempts of a degraded slot. */
  reconnectInitialMs: number;
  reconnectMaxMs: number;
}

/** What a supervisor needs from its surroundings. */
export interface SupervisorDeps {
  timing: ResolverTiming;
  logger: Logger;
  clock: () => Date;
  onChange: (status: SlotStatus) => void;
}

/** Supervises one adapter instance. */
export class SlotSupervisor {
  #state: SlotState = 'connecting';
  #reason: string | undefined = 'connecting';
  #since: Date;
  #permanent = false;
  #busy = false;
  #closed = false;
  #closing: Promise<void> | undefined;
  #healthTimer: NodeJS.Timeout | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  readonly #abort = new AbortController();
  readonly #backoff: Backoff;
  /**
   * The adapter's connect() or health() under way, as a promise that settles with it. The
   * deadline around a call gives up on it, but the call itself may go on (an event log reopening
   * its files): close waits for it, or a reconnect finishing after the close would open the
   * adapter again under a box that has stopped.
   */
  #inFlight: Promise<void> | undefined;

  constructor(
    readonly identity: Omit<SlotStatus, 'state' | 'reason' | 'since'>,
    readonly adapter: AdapterLifecycle,
    private readonly deps: SupervisorDeps,
  ) {
    this.#since = deps.clock();
    this.#backoff = new Backoff(deps.timing.reconnectInitialMs, deps.timing.reconnectMaxMs);
  }

  /** Current state, read on every dispatch. */
  get state(): SlotState {
    return this.#state;
  }

  /** Why the slot is not healthy. */
  get reason(): string | undefined {
    return this.#reason;
  }

  /** A snapshot for reports. */
  status(): SlotStatus {
    return { ...this.identity, state: this.#state, ...(this.#reason ? { reason: this.#reason } : {}), since: this.#since.toISOString() };
  }

  /** The first connect. Resolves true when connect() succeeded (the slot may still report itself degraded). */
  async connectFirst(): Promise<boolean> {
    const connected = await this.#attempt();
    if (this.#state === 'degraded') this.#scheduleReconnect();
    return connected;
  }

  /** Start the periodic health re-probe (after the first connect). */
  startMonitoring(): void {
    if (this.#closed || this.#healthTimer) return;
    this.#healthTimer = setInterval(() => void this.probe(), this.deps.timing.healthIntervalMs);
    this.#healthTimer.unref();
  }

  /** Re-check a healthy slot now; a failure degrades it and starts reconnecting. */
  async probe(): Promise<void> {
    if (this.#closed || this.#busy || this.#state !== 'healthy') return;
    this.#busy = true;
    try {
      const health = await this.#health();
      this.#apply(health);
    } finally {
      this.#busy = false;
    }
    if (this.#isDegraded()) this.#scheduleReconnect();
  }

  /** An operation hit a backend failure: degrade now rather than at the next probe. */
  reportFailure(err: Error): void {
    if (this.#closed || this.#state !== 'healthy') return;
    this.#set('degraded', `unavailable: ${err.message}`);
    this.#scheduleReconnect();
  }

  /** Stop timers, abort anything in flight and close the adapter. Every call gets the same promise. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#healthTimer);
    clearTimeout(this.#reconnectTimer);
    this.#abort.abort(new Error('closing'));
    await this.#settled();
    try {
      await this.adapter.close();
    } catch (err) {
      this.deps.logger.warn({ err, event: 'AdapterCloseFailed', slot: this.identity.slot }, 'closing the adapter failed');
    }
  }

  /** connect() then health(); updates the state. Resolves whether connect() succeeded. */
  async #attempt(): Promise<boolean> {
    try {
      await withDeadline(
        `connect of ${this.identity.slot}`,
        this.deps.timing.connectTimeoutMs,
        (signal) => this.#track(this.adapter.connect(signal)),
        this.#abort.signal,
      );
    } catch (err) {
      if (this.#closed) return false;
      this.#set('degraded', err instanceof DeadlineError ? `connect-timeout: no connection within ${err.ms} ms` : `connect-failed: ${(err as Error).message}`);
      return false;
    }
    if (this.#closed) return true;
    this.#apply(await this.#health());
    return true;
  }

  async #health(): Promise<SlotHealth> {
    try {
      return await withDeadline(
        `health of ${this.identity.slot}`,
        this.deps.timing.healthTimeoutMs,
        (signal) => this.#track(this.adapter.health(signal)),
        this.#abort.signal,
      );
    } catch (err) {
      return {
        state: 'degraded',
        reason: err instanceof DeadlineError ? `health-timeout: no answer within ${err.ms} ms` : `health-check-failed: ${(err as Error).message}`,
      };
    }
  }

  /** `call`, kept as the call under way until it settles. */
  #track<T>(call: Promise<T>): Promise<T> {
    const settled = call.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight = settled;
    void settled.then(() => {
      if (this.#inFlight === settled) this.#inFlight = undefined;
    });
    return call;
  }

  /** The call under way settled, or its deadline passed (an adapter that never answers does not hold the close forever). */
  async #settled(): Promise<void> {
    if (!this.#inFlight) return;
    const cap = new AbortController();
    const ms = Math.max(this.deps.timing.connectTimeoutMs, this.deps.timing.healthTimeoutMs);
    await Promise.race([this.#inFlight, sleep(ms, undefined, { signal: cap.signal }).catch(() => undefined)]);
    cap.abort();
  }

  #apply(health: SlotHealth): void {
    if (this.#closed) return;
    this.#permanent = health.state === 'degraded' && health.permanent === true;
    this.#set(health.state, health.state === 'degraded' ? (health.reason ?? 'degraded') : undefined);
  }

  // A method, not an inline comparison: the state changes across the awaits above.
  #isDegraded(): boolean {
    return this.#state === 'degraded';
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#permanent || this.#reconnectTimer) return;
    const delay = this.#backoff.next();
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      void this.#reconnect();
    }, delay);
    this.#reconnectTimer.unref();
  }

  async #reconnect(): Promise<void> {
    if (this.#closed || this.#state !== 'degraded') return;
    this.#busy = true;
    try {
      await this.#attempt();
    } finally {
      this.#busy = false;
    }
    if (this.#isDegraded()) this.#scheduleReconnect();
    else this.#backoff.reset();
  }

  #set(state: SlotState, reason: string | undefined): void {
    const cleanReason = reason === undefined ? undefined : scrubSecrets(reason);
    if (state === this.#state && cleanReason === this.#reason) return;
    const previous = this.#state;
    this.#state = state;
    this.#reason = cleanReason;
    this.#since = this.deps.clock();
    const { slot, impl } = this.identity;
    const event = state === 'degraded' ? 'SlotDegraded' : previous === 'degraded' ? 'SlotRestored' : state === 'off' ? 'SlotOff' : 'SlotHealthy';
    const level = state === 'degraded' ? 'warn' : 'info';
    this.deps.logger[level](
      { event, impl, state, previous, reason: cleanReason },
      `adapter slot ${slot} (${impl}) is ${state}${cleanReason ? `: ${cleanReason}` : ''}`,
    );
    this.deps.onChange(this.status());
  }
}

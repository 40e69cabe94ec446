// events/external-http: events spooled durably on the state volume, delivered in order to an HTTP sink.
import path from 'node:path';
import type { Logger } from 'pino';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterTimeoutError, AdapterUnavailableError } from '../../adapter-errors.js';
import { authHeaders, callJson } from '../http-client/http-call.js';
import { readIntegrationToken, type TokenSource } from '../http-client/integration-token.js';
import type { EventFilter, EventsAdapter, NewEvent, StoredEvent } from './events-adapter.js';
import { EventHub } from './event-hub.js';
import { checkEvents, checkQuery } from './event-input.js';
import { ioReason } from '../../durable-fs.js';
import { JsonlLog, LogUnusableError } from './jsonl-log.js';
import { SinkForwarder } from './sink-forwarder.js';
import { noMerkleTree } from './no-merkle-tree.js';

// The log is the sink's: this box keeps only a spool, so it has no tree to prove from.
const NO_TREE = noMerkleTree("events/external-http keeps none: the log is the sink's");

/** This implementation's registry name. */
export const ADAPTER = 'events/external-http';
export { CONTRACT_VERSION } from './events-adapter.js';

/** Defaults: 10 s per request, batches of 500 events or 1 MiB, retries from 0.5 s to 30 s, a 256 MiB spool. */
export const DEFAULTS = {
  timeoutMs: 10_000,
  batchEvents: 500,
  batchBytes: 1024 * 1024,
  retryInitialMs: 500,
  retryMaxMs: 30_000,
  maxSpoolBytes: 256 * 1024 * 1024,
  spoolFileBytes: 8 * 1024 * 1024,
};

/** Where the sink is, how to authenticate, where to spool. */
export interface HttpEventsOptions extends Partial<typeof DEFAULTS> {
  /** The sink: POST {events} delivers, GET ?kind&since&until&limit&cursor queries. */
  url: string;
  token: TokenSource;
  env: Readonly<Record<string, string | undefined>>;
  spoolDir: string;
  logger?: Logger;
}

/** The HTTP event sink client. Acknowledged means spooled and fsynced here, not yet delivered. */
export class HttpEvents implements EventsAdapter {
  #spool: JsonlLog | undefined;
  #forwarder: SinkForwarder | undefined;
  #token: string | undefined;
  readonly #hub = new EventHub();
  readonly #o: HttpEventsOptions & typeof DEFAULTS;

  constructor(options: HttpEventsOptions) {
    this.#o = { ...DEFAULTS, ...options };
  }

  /**
   * Read the token, check that the sink answers and accepts it, then open the spool and start
   * delivering what it holds. A sink that cannot be reached at start fails the connect (the slot
   * starts degraded and reconnects); once connected, outages are absorbed by the spool.
   */
  async connect(signal: AbortSignal): Promise<void> {
    await this.#release();
    if (this.#o.url === '') throw new AdapterUnavailableError('events', 'integrations.events.url is empty');
    this.#token = await readIntegrationToken('events', this.#o.token, this.#o.env, this.#o.logger);
    await this.#probe(signal);
    const spool = await JsonlLog.open({
      dir: this.#o.spoolDir,
      prefix: 'spool',
      maxFileBytes: this.#o.spoolFileBytes,
      ...(this.#o.logger ? { logger: this.#o.logger } : {}),
      onDurable: (events) => {
        this.#hub.publish(events);
        this.#forwarder?.notify();
      },
    });
    const forwarder = new SinkForwarder({
      spool,
      cursorFile: path.join(this.#o.spoolDir, 'delivered.json'),
      url: this.#o.url,
      token: this.#token,
      ...pickTiming(this.#o),
      ...(this.#o.logger ? { logger: this.#o.logger } : {}),
    });
    await forwarder.start().catch(async (err: unknown) => {
      await spool.close();
      throw err;
    });
    this.#spool = spool;
    this.#forwarder = forwarder;
  }

  readonly checkpoint = NO_TREE.checkpoint;
  readonly signCheckpoint = NO_TREE.signCheckpoint;
  readonly inclusionProof = NO_TREE.inclusionProof;
  readonly consistencyProof = NO_TREE.consistencyProof;
  readonly logKey = NO_TREE.logKey;

  /** Degraded when the spool cannot be written, is full, or the sink keeps refusing batches. */
  async health(): Promise<SlotHealth> {
    if (!this.#spool || !this.#forwarder) return { state: 'degraded', reason: 'not-connected' };
    if (this.#spool.unusable) return { state: 'degraded', reason: `spool-write-failed: ${this.#spool.unusable.message}` };
    if (this.#forwarder.rejecting) return { state: 'degraded', reason: `sink-rejecting: ${this.#forwarder.rejecting}` };
    if (this.#forwarder.backlog > this.#o.maxSpoolBytes) return { state: 'degraded', reason: 'spool-full' };
    return { state: 'healthy' };
  }

  /** Spool the events (fsynced) and resolve; delivery to the sink follows in the background, in order. */
  async append(events: readonly NewEvent[]): Promise<StoredEvent[]> {
    checkEvents(events);
    const { spool, forwarder } = this.#connected();
    if (forwarder.backlog > this.#o.maxSpoolBytes)
      throw new AdapterUnavailableError('events', `the spool holds more than ${this.#o.maxSpoolBytes} undelivered bytes; the sink is not accepting deliveries`);
    try {
      return await spool.append(events);
    } catch (err) {
      throw new AdapterUnavailableError('events', err instanceof LogUnusableError ? err.message : `spool write failed: ${ioReason(err)}`, { cause: err });
    }
  }

  /** Ask the sink (what it has received; events still spooled here are not in it yet). */
  async query(request: EventFilter & PageRequest): Promise<Page<StoredEvent>> {
    const { filter, limit, cursor } = checkQuery(request);
    this.#connected();
    const qs = new URLSearchParams();
    for (const kind of filter.kinds ?? []) qs.append('kind', kind);
    if (filter.since !== undefined) qs.set('since', filter.since);
    if (filter.until !== undefined) qs.set('until', filter.until);
    qs.set('limit', String(limit));
    if (cursor !== undefined) qs.set('cursor', cursor);
    const page = await callJson<Page<StoredEvent>>({
      slot: 'events',
      base: this.#o.url,
      token: this.#token,
      timeoutMs: this.#o.timeoutMs,
      operation: 'query',
      method: 'GET',
      path: `?${qs.toString()}`,
    });
    return page.nextCursor ? { items: page.items, nextCursor: page.nextCursor } : { items: page.items };
  }

  /** Events appended through this adapter from now on (published once spooled). */
  async subscribe(filter: EventFilter, signal: AbortSignal): Promise<AsyncIterable<StoredEvent>> {
    const { filter: checked } = checkQuery(filter);
    this.#connected();
    return this.#hub.subscribe(checked, signal);
  }

  /** Stop delivering, end subscriptions, close the spool (undelivered events stay in it for next time). */
  async close(): Promise<void> {
    this.#hub.close();
    await this.#release();
  }

  async #release(): Promise<void> {
    const { spool, forwarder } = { spool: this.#spool, forwarder: this.#forwarder };
    this.#spool = undefined;
    this.#forwarder = undefined;
    await forwarder?.stop();
    await spool?.close();
  }

  #connected(): { spool: JsonlLog; forwarder: SinkForwarder } {
    if (!this.#spool || !this.#forwarder) throw new AdapterUnavailableError('events', 'not connected to the sink');
    return { spool: this.#spool, forwarder: this.#forwarder };
  }

  /** The sink must answer a GET and accept the token; a sink without queries may answer 404 or 405. */
  async #probe(signal: AbortSignal): Promise<void> {
    const origin = new URL(this.#o.url).origin;
    let response: Response;
    try {
      response = await fetch(`${this.#o.url}${this.#o.url.includes('?') ? '&' : '?'}limit=1`, {
        headers: authHeaders(this.#token, false),
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.#o.timeoutMs)]),
      });
      await response.arrayBuffer();
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') throw new AdapterTimeoutError('events', 'connect', this.#o.timeoutMs);
      const code = (err as { cause?: { code?: string } }).cause?.code;
      throw new AdapterUnavailableError('events', `cannot reach the sink at ${origin}: ${code ?? (err as Error).message}`, { cause: err });
    }
    if (response.status === 401 || response.status === 403)
      throw new AdapterUnavailableError(
        'events',
        `the sink at ${origin} refused our credentials (${response.status}); check integrations.events.token_env / token_file`,
      );
    if (response.status >= 500) throw new AdapterUnavailableError('events', `the sink at ${origin} answered ${response.status}`);
  }
}

function pickTiming(o: typeof DEFAULTS): Pick<typeof DEFAULTS, 'timeoutMs' | 'batchEvents' | 'batchBytes' | 'retryInitialMs' | 'retryMaxMs'> {
  return { timeoutMs: o.timeoutMs, batchEvents: o.batchEvents, batchBytes: o.batchBytes, retryInitialMs: o.retryInitialMs, retryMaxMs: o.retryMaxMs };
}

/** Build the client from `[integrations.events]`, spooling under `<state>/events-spool`. */
export function create(context: AdapterContext<'events'>): EventsAdapter {
  const integration = context.settings;
  return new HttpEvents({
    url: integration.url,
    token: integration,
    env: context.env,
    spoolDir: path.join(context.paths.stateDir, 'events-spool'),
    logger: context.logger,
  });
}

// Client mode: register with the mesh host, heartbeat every interval, register again after 410, back off while the host
// is unreachable (trying the other host replicas it named), deregister on close. Never part of readiness.
import type { Logger } from 'pino';
import { Backoff } from '../../adapters/backoff.js';
import { CLIENT_STATES, type ClientState, type FederationMetrics } from '../federation-metrics.js';
import type { BoxIdentity } from '../identity.js';
import { hostCall, type HostAnswer } from './host-call.js';
import type { MemberWitness, MemberWitnessStatus } from './member-witness.js';

/** Timings of the client; tests compress them. */
export interface ClientTiming {
  /** Milliseconds per second of the host's heartbeat interval (1000; a test seam to compress time). */
  secondMs: number;
  /** Backoff while the host is unreachable or fails: from this, doubling, ±20 % jitter … */
  backoffInitialMs: number;
  /** … up to this. */
  backoffMaxMs: number;
  /** Deadline of one register or heartbeat call. */
  requestTimeoutMs: number;
  /** Deadline of the deregistration on shutdown (the shutdown must not wait on a dead host). */
  deregisterTimeoutMs: number;
}

/** Default client timings. */
export const DEFAULT_CLIENT_TIMING: ClientTiming = {
  secondMs: 1000,
  backoffInitialMs: 1_000,
  backoffMaxMs: 60_000,
  requestTimeoutMs: 5_000,
  deregisterTimeoutMs: 2_000,
};

/** What /health and /v1/meta show of a client. */
export interface ClientStatus {
  mode: 'client';
  state: ClientState;
  /** mesh.host_url. */
  hostUrl: string;
  /** The host address in use (host_url or a replica the host named). */
  host: string;
  sessionId: string | null;
  heartbeatIntervalSec: number | null;
  registeredAt: string | null;
  lastHeartbeatAt: string | null;
  lastError: string | null;
  /** When the next call is due, while backing off. */
  retryAt: string | null;
  /** The host as witness of this box's event log (absent when the client offers no checkpoints). */
  witness?: MemberWitnessStatus;
}

/** What the client reports: its registration body and each heartbeat's body (built fresh for every call). */
export interface MemberReport {
  registration(apiEndpoint: string): Promise<Record<string, unknown>>;
  beat(): Promise<Record<string, unknown>>;
}

interface Session {
  id: string;
  intervalSec: number;
  heartbeat: string;
  deregister: string;
}

const trim = (url: string): string => url.replace(/\/+$/, '');
/** `url`'s path and query on `base` (another replica of the same host). */
const rebase = (url: string, base: string): string => {
  const u = new URL(url);
  return `${trim(base)}${u.pathname}${u.search}`;
};

/** A mesh client. Construct, then {@link start} once the API listens; {@link close} deregisters. */
export class FederationClient {
  readonly #timing: ClientTiming;
  readonly #backoff: Backoff;
  readonly #abort = new AbortController();
  #apiEndpoint = '';
  #state: ClientState = 'registering';
  #session: Session | undefined;
  /** host_url first, then the replicas the host named; `#at` is the one in use. */
  #bases: string[];
  #at = 0;
  #timer: NodeJS.Timeout | undefined;
  #inflight: Promise<void> | undefined;
  #closed = false;
  #status: Omit<ClientStatus, 'mode' | 'state' | 'hostUrl' | 'host' | 'sessionId' | 'heartbeatIntervalSec'> = {
    registeredAt: null,
    lastHeartbeatAt: null,
    lastError: null,
    retryAt: null,
  };

  constructor(
    private readonly options: {
      hostUrl: string;
      identity: BoxIdentity;
      report: MemberReport;
      logger: Logger;
      metrics: FederationMetrics;
      clock: () => Date;
      timing?: Partial<ClientTiming>;
      /** Offers the event log's checkpoints to the host with heartbeats and keeps its cosignatures. */
      witness?: MemberWitness;
    },
  ) {
    this.#timing = { ...DEFAULT_CLIENT_TIMING, ...options.timing };
    this.#backoff = new Backoff(this.#timing.backoffInitialMs, this.#timing.backoffMaxMs);
    this.#bases = [trim(options.hostUrl)];
    this.#setState('registering');
  }

  /** Begin registering; `apiEndpoint` is where the host can reach this box's API. */
  start(apiEndpoint: string): void {
    this.#apiEndpoint = apiEndpoint;
    this.#schedule(0);
  }

  status(): ClientStatus {
    const s = this.#session;
    const witness = this.options.witness?.status();
    return {
      mode: 'client',
      state: this.#state,
      hostUrl: this.options.hostUrl,
      host: this.#bases[this.#at] ?? this.options.hostUrl,
      sessionId: s?.id ?? null,
      heartbeatIntervalSec: s?.intervalSec ?? null,
      ...this.#status,
      ...(witness ? { witness } : {}),
    };
  }

  #setState(state: ClientState): void {
    this.#state = state;
    for (const s of CLIENT_STATES) this.options.metrics.clientState.set({ state: s }, s === state ? 1 : 0);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    this.#status.retryAt = this.#state === 'backing_off' ? new Date(this.options.clock().getTime() + ms).toISOString() : null;
    this.#timer = setTimeout(() => {
      this.#inflight = (this.#session ? this.#heartbeat(this.#session) : this.#register()).finally(() => (this.#inflight = undefined));
    }, ms).unref();
  }

  async #register(): Promise<void> {
    const base = this.#bases[this.#at]!;
    const body = { ...(await this.options.report.registration(this.#apiEndpoint)), ...(await this.options.witness?.registration()) };
    const answer = await hostCall(this.options.identity, 'POST', `${base}/v1/register`, body, this.#timing.requestTimeoutMs, this.#abort.signal);
    if (this.#closed) return;
    const session = answer.status === 201 && answer.json ? parseSession(answer.json) : undefined;
    if (!session) return this.#failed('register', answer);
    this.options.witness?.registered(answer.json);
    this.#count('register', 'ok');
    this.#session = session;
    // The address that answered first, then host_url, then the other replicas.
    const json = answer.json ?? {};
    const named = Array.isArray(json['replicas']) ? (json['replicas'] as unknown[]).filter((u): u is string => typeof u === 'string') : [];
    this.#bases = [...new Set([new URL(session.heartbeat).origin, trim(this.options.hostUrl), ...named.map(trim)])];
    this.#at = 0;
    this.#status.registeredAt = this.options.clock().toISOString();
    this.#status.lastError = null;
    this.#backoff.reset();
    this.#setState('registered');
    this.options.logger.info(
      { event: 'MeshRegistered', host: base, sessionId: session.id, heartbeatIntervalSec: session.intervalSec },
      `registered with the mesh host ${base}`,
    );
    this.#schedule(session.intervalSec * this.#timing.secondMs);
  }

  async #heartbeat(session: Session): Promise<void> {
    const base = this.#bases[this.#at]!;
    const url = this.#at === 0 ? session.heartbeat : rebase(session.heartbeat, base);
    const body = { ...(await this.options.report.beat()), ...(await this.options.witness?.offer()) };
    const answer = await hostCall(this.options.identity, 'POST', url, body, this.#timing.requestTimeoutMs, this.#abort.signal);
    if (this.#closed) return;
    if (answer.status === 200) await this.options.witness?.answered(answer.json);
    if (answer.status === 410) {
      this.#count('heartbeat', 'gone');
      this.options.logger.warn(
        { event: 'MeshSessionGone', host: base, sessionId: session.id },
        `the mesh host no longer knows session ${session.id} (evicted or restarted): registering again`,
      );
      this.#session = undefined;
      this.#backoff.reset();
      this.#setState('registering');
      return this.#schedule(0);
    }
    if (answer.status !== 200) return this.#failed('heartbeat', answer);
    this.#count('heartbeat', 'ok');
    const told = answer.json?.['heartbeat_interval_sec'];
    if (typeof told === 'number' && Number.isInteger(told) && told > 0) session.intervalSec = told;
    this.#status.lastHeartbeatAt = this.options.clock().toISOString();
    this.#status.lastError = null;
    this.#backoff.reset();
    this.#setState('registered');
    this.#schedule(session.intervalSec * this.#timing.secondMs);
  }

  /** No usable answer: back off, and try the next known replica on the next attempt. */
  #failed(call: 'register' | 'heartbeat', answer: HostAnswer): void {
    const refused = answer.status >= 400 && answer.status < 500;
    this.#count(call, refused ? 'refused' : 'error');
    const message = answer.json?.['message'];
    const why = answer.error ?? `${answer.status} ${typeof message === 'string' ? message : ''}`.trim();
    this.#status.lastError = `${call}: ${why}`;
    if (!refused) this.#at = (this.#at + 1) % this.#bases.length;
    const delay = this.#backoff.next();
    this.#setState('backing_off');
    this.options.logger.warn(
      { event: 'MeshHostUnavailable', call, host: this.#bases[this.#at], retryInMs: delay },
      `mesh ${call} failed (${why}); retrying in ${delay} ms`,
    );
    this.#schedule(delay);
  }

  #count(call: 'register' | 'heartbeat' | 'deregister', outcome: 'ok' | 'gone' | 'refused' | 'error'): void {
    this.options.metrics.clientCalls.inc({ call, outcome });
  }

  /** Stop calling the host; deregister the session if there is one (bounded by deregisterTimeoutMs). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#abort.abort();
    await this.#inflight;
    const session = this.#session;
    this.#session = undefined;
    this.#setState('disabled');
    if (!session) return;
    const base = this.#bases[this.#at]!;
    const url = this.#at === 0 ? session.deregister : rebase(session.deregister, base);
    const answer = await hostCall(this.options.identity, 'DELETE', url, undefined, this.#timing.deregisterTimeoutMs, new AbortController().signal);
    const ok = answer.status === 204;
    this.#count('deregister', ok ? 'ok' : answer.status === 410 ? 'gone' : answer.status === 0 || answer.status >= 500 ? 'error' : 'refused');
    this.options.logger.info(
      { event: ok ? 'MeshDeregistered' : 'MeshDeregisterFailed', host: base, sessionId: session.id, status: answer.status },
      ok ? `deregistered from the mesh host ${base}` : `could not deregister from the mesh host ${base}; it evicts this box after three missed heartbeats`,
    );
  }
}

/** The session of a 201 answer, or undefined when the answer lacks a part. */
function parseSession(json: Record<string, unknown>): Session | undefined {
  const endpoints = json['endpoints'] as Record<string, unknown> | undefined;
  const id = json['session_id'];
  const intervalSec = json['heartbeat_interval_sec'];
  const heartbeat = endpoints?.['heartbeat'];
  const deregister = endpoints?.['deregister'];
  if (typeof id !== 'string' || typeof intervalSec !== 'number' || !(intervalSec > 0) || typeof heartbeat !== 'string' || typeof deregister !== 'string')
    return undefined;
  try {
    new URL(heartbeat);
    new URL(deregister);
  } catch {
    return undefined;
  }
  return { id, intervalSec, heartbeat, deregister };
}

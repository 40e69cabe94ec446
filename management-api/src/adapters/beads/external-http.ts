// beads/external-http: a client of another box's /v1/beads routes, so boxes can share one task store.
import type { Logger } from 'pino';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterUnavailableError } from '../../adapter-errors.js';
import type { Bead, BeadOutcome, BeadQuery, BeadsAdapter, ClaimResult, NewBead } from './beads-adapter.js';
import { callJson, type HttpCall } from '../http-client/http-call.js';
import { readIntegrationToken, type TokenSource } from '../http-client/integration-token.js';

/** This implementation's registry name. */
export const ADAPTER = 'beads/external-http';
export { CONTRACT_VERSION } from './beads-adapter.js';

/** Deadline of one request to the beads service. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** Where the service is and how to authenticate. */
export interface HttpBeadsOptions {
  /** Base URL of the other box's management API, e.g. `http://beads-host:9090`. */
  url: string;
  token: TokenSource;
  env: Readonly<Record<string, string | undefined>>;
  timeoutMs?: number;
  logger?: Logger;
}

/** The HTTP beads client. */
export class HttpBeads implements BeadsAdapter {
  #token: string | undefined;
  #connected = false;

  constructor(private readonly options: HttpBeadsOptions) {}

  /** Read the token and make one authenticated request: the service must answer, and accept us. */
  async connect(signal: AbortSignal): Promise<void> {
    this.#connected = false;
    if (this.options.url === '') throw new AdapterUnavailableError('beads', 'integrations.beads.url is empty');
    this.#token = await readIntegrationToken('beads', this.options.token, this.options.env, this.options.logger);
    await this.#call({ operation: 'connect', method: 'GET', path: '/v1/beads?limit=1', signal });
    this.#connected = true;
  }

  /** The same authenticated request, answered as health. */
  async health(signal: AbortSignal): Promise<SlotHealth> {
    if (!this.#connected) return { state: 'degraded', reason: 'not-connected' };
    try {
      await this.#call({ operation: 'health', method: 'GET', path: '/v1/beads?limit=1', signal });
      return { state: 'healthy' };
    } catch (err) {
      return { state: 'degraded', reason: (err as Error).message };
    }
  }

  async create(input: NewBead): Promise<Bead> {
    return (await this.#call<{ bead: Bead }>({ operation: 'create', method: 'POST', path: '/v1/beads', body: input })).bead;
  }

  async get(id: string): Promise<Bead> {
    return (await this.#call<{ bead: Bead }>({ operation: 'get', method: 'GET', path: `/v1/beads/${encodeURIComponent(id)}`, subject: `bead ${id}` })).bead;
  }

  async list(query: BeadQuery): Promise<Page<Bead>> {
    const qs = search({ status: query.status, parentId: query.parentId, limit: query.limit, cursor: query.cursor });
    return page(await this.#call<Page<Bead>>({ operation: 'list', method: 'GET', path: `/v1/beads${qs}` }));
  }

  async claim(id: string, claimant: string): Promise<ClaimResult> {
    const r = await this.#call<ClaimResult>({
      operation: 'claim',
      method: 'POST',
      path: `/v1/beads/${encodeURIComponent(id)}/claim`,
      body: { claimant },
      subject: `bead ${id}`,
    });
    return { bead: r.bead, claimed: r.claimed };
  }

  async closeBead(id: string, outcome: BeadOutcome, note?: string): Promise<Bead> {
    const body = note === undefined ? { outcome } : { outcome, note };
    return (
      await this.#call<{ bead: Bead }>({
        operation: 'closeBead',
        method: 'POST',
        path: `/v1/beads/${encodeURIComponent(id)}/close`,
        body,
        subject: `bead ${id}`,
      })
    ).bead;
  }

  async readyQueue(request: PageRequest): Promise<Page<Bead>> {
    return page(
      await this.#call<Page<Bead>>({
        operation: 'readyQueue',
        method: 'GET',
        path: `/v1/beads/ready${search({ limit: request.limit, cursor: request.cursor })}`,
      }),
    );
  }

  /** Nothing to release: fetch keeps no session. */
  async close(): Promise<void> {
    this.#connected = false;
  }

  #call<T>(call: Pick<HttpCall, 'operation' | 'method' | 'path' | 'body' | 'subject' | 'signal'>): Promise<T> {
    return callJson<T>({ slot: 'beads', base: this.options.url, token: this.#token, timeoutMs: this.options.timeoutMs ?? REQUEST_TIMEOUT_MS, ...call });
  }
}

/** A query string of the defined parameters (`?a=1&b=2`, or empty). */
function search(params: Record<string, string | number | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) qs.set(k, String(v));
  const text = qs.toString();
  return text ? `?${text}` : '';
}

function page(p: Page<Bead>): Page<Bead> {
  return p.nextCursor ? { items: p.items, nextCursor: p.nextCursor } : { items: p.items };
}

/** Build the client from `[integrations.beads]`. */
export function create(context: AdapterContext<'beads'>): BeadsAdapter {
  const integration = context.settings;
  return new HttpBeads({ url: integration.url, token: integration, env: context.env, logger: context.logger });
}

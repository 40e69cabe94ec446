// One HTTP call of the client: the URL from a route template, the credential, and retries where they are safe.
import { authorization, type Credential } from './auth.js';
import { AgentboxError, errorFromAnswer } from './errors.js';
import { encodePathSegment } from './encoding.js';

/** How the client reaches the box. */
export interface TransportOptions {
  /** The box's API, e.g. http://127.0.0.1:8080 (a path prefix is kept). */
  url: string;
  credential?: Credential;
  /** The fetch to use (default: the global one); a proxy-aware or instrumented fetch goes here. */
  fetch?: typeof fetch;
  /** Extra attempts of a GET after a connection error or a 503 with Retry-After (default 2). Other methods are never retried. */
  retries?: number;
  /** The longest Retry-After the client waits out (default 10 s); a longer one fails at once. */
  maxRetryAfterMs?: number;
}

/** One request, before the URL is built. */
export interface RequestSpec {
  method: string;
  /** A route template: `{name}` is a path parameter, `{*}` the rest of the path. */
  path: string;
  params?: Record<string, string> | undefined;
  query?: Record<string, unknown> | undefined;
  headers?: Record<string, string | undefined> | undefined;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with its content type (pods' text, workspace files' bytes, a tar stream's bytes). */
  raw?: { text: string | Uint8Array; contentType: string } | undefined;
  signal?: AbortSignal | undefined;
  /** Statuses besides 2xx that are answers rather than errors (e.g. 503 of /ready, 304 of a conditional GET). */
  accept?: readonly number[];
}

const BACKOFF_MS = 100;

/**
 * Routes sent without the credential: the key proof is asked to learn whether a URL's box holds the
 * key before the key goes there, so the request must not carry it.
 *
 * No request follows a redirect. A proof fetched from where a redirect points says nothing of the
 * URL itself; and fetch carries the credential on to wherever a same-origin redirect points, which
 * a proof of the URL did not cover (a name that rebinds, a proxy in front of the box). The box's
 * API routes never redirect, so a redirect is an error (ABX_CLIENT_REDIRECT).
 */
const UNCREDENTIALED = new Set(['GET /v1/auth/key-proof']);

/** The HTTP layer the typed client stands on. */
export class Transport {
  readonly #base: string;
  readonly #credential: Credential | undefined;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #maxRetryAfterMs: number;

  constructor(options: TransportOptions) {
    let base: URL;
    try {
      base = new URL(options.url);
    } catch {
      throw new AgentboxError('ABX_CLIENT_INPUT', 0, `the box URL ${JSON.stringify(options.url)} is not an absolute URL (e.g. http://127.0.0.1:8080)`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new AgentboxError('ABX_CLIENT_INPUT', 0, `the box URL must be http or https, not ${base.protocol}`);
    this.#base = base.href.replace(/\/+$/, '');
    this.#credential = options.credential;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#retries = options.retries ?? 2;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 10_000;
  }

  /** The absolute URL of a request. */
  url(spec: Pick<RequestSpec, 'path' | 'params' | 'query'>): string {
    const pathname = spec.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      const value = spec.params?.[name];
      if (typeof value !== 'string' || value === '') throw new AgentboxError('ABX_CLIENT_INPUT', 0, `${spec.path}: the path parameter ${name} is missing`);
      // `{*}` is a path of its own: its slashes stay, each segment is encoded. A `.` or `..` segment would be
      // resolved by the URL parser (`files/../x` becoming another route of the agent): then the slashes are
      // encoded too, and a path that is only `.` or `..` gets an encoded trailing `/`, so it reaches the box
      // as a path and the box judges it.
      if (name !== '*') return encodeURIComponent(value);
      const segments = value.split('/');
      if (!segments.some((s) => s === '.' || s === '..')) return segments.map(encodePathSegment).join('/');
      return value === '.' || value === '..' ? `${value}%2F` : encodePathSegment(value);
    });
    let search = '';
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      for (const v of Array.isArray(value) ? value : [value]) {
        if (v === undefined || v === null) continue;
        search += `${search ? '&' : '?'}${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`;
      }
    }
    return `${this.#base}${pathname}${search}`;
  }

  /** Send the request; the answer when its status is 2xx or accepted, else an AgentboxError. */
  async send(spec: RequestSpec): Promise<Response> {
    const url = this.url(spec);
    // Bytes are copied once into a buffer of their own: fetch takes an ArrayBuffer-backed view, not a shared or Node-pooled one.
    const raw = spec.raw?.text;
    const body = raw !== undefined ? (typeof raw === 'string' ? raw : new Uint8Array(raw)) : spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const retries = spec.method === 'GET' ? this.#retries : 0;
    const bare = UNCREDENTIALED.has(`${spec.method} ${spec.path}`);
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(spec.headers ?? {})) if (v !== undefined) headers[k] = v;
      if (body !== undefined) headers['content-type'] = spec.raw?.contentType ?? 'application/json';
      const auth = bare ? undefined : await authorization(this.#credential, url, spec.method, body, Date.now);
      if (auth) headers['authorization'] = auth;
      let res: Response;
      try {
        res = await this.#fetch(url, {
          method: spec.method,
          headers,
          redirect: 'manual',
          ...(body !== undefined ? { body } : {}),
          ...(spec.signal ? { signal: spec.signal } : {}),
        });
      } catch (err) {
        if (spec.signal?.aborted)
          throw new AgentboxError('ABX_CLIENT_ABORTED', 0, `${spec.method} ${url}: aborted (${String(spec.signal.reason)})`, undefined, { cause: err });
        if (attempt < retries) {
          await pause(BACKOFF_MS * 2 ** attempt, spec.signal);
          continue;
        }
        const cause = (err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message;
        throw new AgentboxError('ABX_CLIENT_UNREACHABLE', 0, `cannot reach ${url}: ${cause}`, undefined, { cause: err });
      }
      if (res.ok || spec.accept?.includes(res.status)) return res;
      // In a browser a redirect not followed is an opaque answer of status 0, its target hidden.
      if ((res.status >= 300 && res.status < 400) || res.type === 'opaqueredirect') {
        await res.body?.cancel().catch(() => undefined);
        const location = res.headers.get('location');
        throw new AgentboxError(
          'ABX_CLIENT_REDIRECT',
          res.status,
          `${spec.method} ${url}: answered with a redirect (HTTP ${res.status || '3xx'}${location ? ` to ${JSON.stringify(location.slice(0, 200))}` : ''}), which the client never follows: the box's API routes do not redirect, so whatever answered is not the box, or sits in front of it`,
          res.headers.get('x-request-id') ?? undefined,
        );
      }
      const wait = res.status === 503 ? retryAfterMs(res.headers.get('retry-after')) : undefined;
      const text = await res.text();
      if (wait !== undefined && wait <= this.#maxRetryAfterMs && attempt < retries) {
        await pause(wait, spec.signal);
        continue;
      }
      throw errorFromAnswer(res.status, text, res.headers.get('x-request-id') ?? undefined);
    }
  }

  /** Send and parse the JSON answer (undefined for an empty one, as a 204 has). */
  async json<T>(spec: RequestSpec): Promise<T> {
    const res = await this.send(spec);
    const text = await res.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new AgentboxError(
        'ABX_CLIENT_BAD_RESPONSE',
        res.status,
        `${spec.method} ${spec.path}: the answer is not JSON: ${text.slice(0, 200)}`,
        res.headers.get('x-request-id') ?? undefined,
      );
    }
  }
}

/** Retry-After in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AgentboxError('ABX_CLIENT_ABORTED', 0, 'aborted while waiting to retry'));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AgentboxError('ABX_CLIENT_ABORTED', 0, 'aborted while waiting to retry'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

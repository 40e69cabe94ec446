// HTTP to a Solid server: URLs from pod paths, bearer token, deadlines, and status → adapter error mapping.
import {
  AdapterConflictError,
  AdapterInputError,
  AdapterNotFoundError,
  AdapterPreconditionError,
  AdapterTimeoutError,
  AdapterUnavailableError,
} from '../../adapter-errors.js';
import { scrubSecrets } from '../../secrets/redact.js';
import type { PodPath } from './pod-path.js';

/** Deadline of one HTTP exchange with the Solid server. */
export const REQUEST_TIMEOUT_MS = 10_000;

/** One request to the server. */
export interface SolidRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  /** Bytes over an ArrayBuffer, as fetch's BodyInit takes them (see requestBody). */
  body?: Uint8Array<ArrayBuffer>;
  signal?: AbortSignal;
}

/** Bytes fit for a request body: a view of a SharedArrayBuffer, which fetch's BodyInit does not take, is copied. */
export function requestBody(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);
}

/** A client bound to one server base URL (the pod root container). */
export class SolidHttp {
  /** The base URL, always ending in `/`. */
  readonly base: URL;

  constructor(
    baseUrl: string,
    private readonly token: () => string | undefined,
    private readonly timeoutMs = REQUEST_TIMEOUT_MS,
  ) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  }

  /** The URL of a pod path: each segment percent-encoded, so no name can alter the URL's structure. */
  urlOf(p: PodPath): URL {
    const encoded = p.segments.map((s) => encodeURIComponent(s)).join('/');
    return new URL(encoded + (p.isContainer && p.segments.length ? '/' : ''), this.base);
  }

  /** Send a request. Network failures reject with AdapterUnavailableError, a missed deadline with AdapterTimeoutError. */
  async send(url: URL, request: SolidRequest): Promise<Response> {
    const headers: Record<string, string> = { ...request.headers };
    const token = this.token();
    if (token) headers['authorization'] = `Bearer ${token}`;
    const deadline = AbortSignal.timeout(this.timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    try {
      return await fetch(url, { method: request.method, headers, ...(request.body ? { body: request.body } : {}), signal, redirect: 'manual' });
    } catch (err) {
      if (deadline.aborted) throw new AdapterTimeoutError('pods', `${request.method} ${url.pathname}`, this.timeoutMs);
      if (request.signal?.aborted) throw err;
      throw new AdapterUnavailableError('pods', `cannot reach the Solid server at ${this.base.origin}: ${networkReason(err)}`, { cause: err });
    }
  }
}

/**
 * The adapter error for a response that is not a success, after reading (at most a little of)
 * its body for the message. Server faults and authentication failures make the slot unavailable;
 * refusals of this one request map to the matching client error.
 */
export async function errorFor(response: Response, method: string, p: PodPath): Promise<Error> {
  const detail = await responseDetail(response);
  const where = `${method} "${p.path}"`;
  switch (response.status) {
    case 404:
    case 410:
      return new AdapterNotFoundError(`pod ${p.isContainer ? 'container' : 'resource'} "${p.path}"`);
    case 409:
      return new AdapterConflictError(`the Solid server refused ${where} as conflicting${detail}`);
    case 412:
      return new AdapterPreconditionError(`the precondition of ${where} failed on the Solid server${detail}`);
    case 403:
      // One resource's access control, not the connection: the request fails, the slot stays up.
      return new AdapterConflictError(`the Solid server's access control forbids ${where} (403)${detail}`);
    case 401:
      return new AdapterUnavailableError('pods', `the Solid server wants authentication (401) for ${where}; check integrations.pods.token_env / token_file`);
    default:
      if (response.status >= 400 && response.status < 500) return new AdapterInputError(`the Solid server refused ${where} (${response.status})${detail}`);
      return new AdapterUnavailableError('pods', `the Solid server answered ${where} with ${response.status}${detail}`);
  }
}

/** Throw {@link errorFor} unless the response is a 2xx. */
export async function expectOk(response: Response, method: string, p: PodPath): Promise<Response> {
  if (response.ok) return response;
  throw await errorFor(response, method, p);
}

/** Release a response body that is not needed, so the connection returns to the pool. */
export async function drain(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

async function responseDetail(response: Response): Promise<string> {
  let text = '';
  try {
    text = (await response.text()).slice(0, 2000);
  } catch {
    return '';
  }
  let message = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    // Not JSON: the text itself.
  }
  message = scrubSecrets(message.replace(/\s+/g, ' ').trim()).slice(0, 200);
  return message ? `: ${message}` : '';
}

function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}

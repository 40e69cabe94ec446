// One JSON request to an Agentbox-style HTTP service, with a deadline and errors mapped to adapter errors.
import type { SlotName } from '../adapter.js';
import {
  AdapterConflictError,
  AdapterInputError,
  AdapterNotFoundError,
  AdapterPreconditionError,
  AdapterTimeoutError,
  AdapterUnavailableError,
} from '../../adapter-errors.js';
import { ApiError } from '../../errors.js';

/** What a request needs. */
export interface HttpCall {
  slot: SlotName;
  /** Base URL of the service (no trailing slash needed). */
  base: string;
  token: string | undefined;
  timeoutMs: number;
  /** Operation name, for timeout messages. */
  operation: string;
  method: 'GET' | 'POST';
  /** Path and query under the base, starting with `/`. */
  path: string;
  body?: unknown;
  /** What a 404 for a missing item names, e.g. `bead bd-1`. */
  subject?: string;
  signal?: AbortSignal;
}

/** Headers for a JSON request with the bearer token, if any. */
export function authHeaders(token: string | undefined, json: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (json) headers['content-type'] = 'application/json';
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  return headers;
}

/** Join a base URL and a path without doubling or dropping the slash. */
export function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

/**
 * Send the request and return the parsed JSON of a 2xx answer. Failures become adapter errors:
 * unreachable or 5xx → AdapterUnavailableError (the slot degrades), a missed deadline or 504 →
 * AdapterTimeoutError, 400/404/409/412 → the matching client error with the service's message,
 * 429 → rate limited (passed on with Retry-After). Messages carry the service origin, never the token.
 */
export async function callJson<T>(call: HttpCall): Promise<T> {
  const url = joinUrl(call.base, call.path);
  const origin = new URL(url).origin;
  const deadline = AbortSignal.timeout(call.timeoutMs);
  const signal = call.signal ? AbortSignal.any([deadline, call.signal]) : deadline;
  let response: Response;
  try {
    response = await fetch(url, {
      method: call.method,
      headers: authHeaders(call.token, call.body !== undefined),
      ...(call.body !== undefined ? { body: JSON.stringify(call.body) } : {}),
      signal,
    });
  } catch (err) {
    if (deadline.aborted) throw new AdapterTimeoutError(call.slot, call.operation, call.timeoutMs);
    if (call.signal?.aborted) throw call.signal.reason;
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new AdapterUnavailableError(call.slot, `cannot reach ${origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err });
  }
  const text = await response.text().catch(() => '');
  if (response.ok) {
    try {
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch {
      throw new AdapterUnavailableError(call.slot, `${origin} answered ${response.status} with a body that is not JSON`);
    }
  }
  throw remoteError(call, origin, response, text);
}

function remoteError(call: HttpCall, origin: string, response: Response, text: string): Error {
  let error = '';
  let message = text.slice(0, 200);
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string') error = body.error;
    if (typeof body.message === 'string') message = body.message;
  } catch {
    // Not an Agentbox error body (a proxy's HTML page, say): keep the raw text excerpt.
  }
  const status = response.status;
  const what = `${origin} answered ${status}${error ? ` ${error}` : ''}`;
  switch (status) {
    case 400:
      return new AdapterInputError(message);
    case 404:
      // A 404 for a missing route means the service is not what the manifest says it is.
      if (error === 'ABX_ERR_NOT_FOUND' && !message.startsWith('no route')) return new AdapterNotFoundError(call.subject ?? 'item');
      return new AdapterUnavailableError(call.slot, `${what}: ${message}`);
    case 409:
      return new AdapterConflictError(message);
    case 412:
      return new AdapterPreconditionError(message);
    case 429:
      return new ApiError('ABX_ERR_RATE_LIMITED', `${what}: ${message}`, retryAfter(response));
    case 504:
      return new AdapterTimeoutError(call.slot, call.operation, call.timeoutMs);
    case 401:
    case 403:
      return new AdapterUnavailableError(call.slot, `${what}: the service refused our credentials (check integrations.${call.slot}.token_env / token_file)`);
    default:
      // Other 4xx (413, 415, …) refuse this request, not the service.
      if (status < 500) return new AdapterInputError(`${what}: ${message}`);
      return new AdapterUnavailableError(call.slot, `${what}: ${message}`);
  }
}

function retryAfter(response: Response): Record<string, string> {
  const value = response.headers.get('retry-after');
  return value ? { 'retry-after': value } : {};
}

// Calls to the management API from the page: same-origin cookie session, CSRF header on mutations, errors as readable messages.
import type { ErrorBody, SessionInfo } from './types.js';

/** An API answer that was not 2xx, with the body's code and message. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiProblem';
  }
}

// The CSRF token lives only in memory: a reload asks GET /ui/session for it again.
let csrfToken = '';
// Called when any call finds the session gone (401), so the shell can show the sign-in.
let onSignedOut: () => void = () => undefined;

/** Remember the session's CSRF token for later mutations. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Register what to do when a call answers 401 (the session expired or was revoked). */
export function onSessionLost(handler: () => void): void {
  onSignedOut = handler;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorBody(v: unknown): v is ErrorBody {
  return typeof v === 'object' && v !== null && typeof (v as ErrorBody).error === 'string' && typeof (v as ErrorBody).message === 'string';
}

/** Send one request; resolves with the JSON body (undefined for 204), throws ApiProblem otherwise. */
export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, credentials: 'same-origin', ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch {
    throw new ApiProblem(0, 'NETWORK', 'The box did not answer: check that the management API is running.');
  }
  const text = await res.text();
  const json = text ? parse(text) : undefined;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/ui/session')) onSignedOut();
    if (isErrorBody(json)) throw new ApiProblem(res.status, json.error, json.message);
    throw new ApiProblem(res.status, `HTTP ${res.status}`, text.trim() || res.statusText || 'the request failed');
  }
  return json as T;
}

/** The current session, or undefined when signed out (GET /ui/session answers 401). */
export async function currentSession(): Promise<SessionInfo | undefined> {
  try {
    return await call<SessionInfo>('GET', '/ui/session');
  } catch (err) {
    if (err instanceof ApiProblem && err.status === 401) return undefined;
    throw err;
  }
}

/** Exchange the API key for a session cookie (the key is sent once and kept nowhere). */
export async function signIn(apiKey: string): Promise<SessionInfo> {
  return call<SessionInfo>('POST', '/ui/session', { apiKey });
}

/** End the session on the server (the cookie is cleared by the answer). */
export async function signOut(): Promise<void> {
  await call<undefined>('DELETE', '/ui/session');
}

/** A readable line for any error thrown by a call. */
export function describe(err: unknown): string {
  if (err instanceof ApiProblem) return err.status > 0 ? `${err.message} (${err.code})` : err.message;
  return err instanceof Error ? err.message : String(err);
}

// Calls to the management API from the page: same-origin cookie session, CSRF header on mutations, errors as readable messages.
import type { ErrorBody, SessionInfo } from './types.js';

/** An API answer that was not 2xx, with the body's code and message. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the box asked to wait before trying again (Retry-After of a 429), when it said. */
    readonly retryAfterSec?: number,
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
export async function call<T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
  } catch {
    throw new ApiProblem(0, 'NETWORK', 'The box did not answer: check that the management API is running.');
  }
  return (await answer(res, path)).json as T;
}

/** The JSON body of a 2xx answer, with its status; ApiProblem otherwise (and a 401 reported as the session lost). */
async function answer(res: Response, path: string): Promise<{ status: number; json: unknown }> {
  const text = await res.text();
  const json = text ? parse(text) : undefined;
  if (!res.ok) {
    if (res.status === 401 && !path.startsWith('/ui/session')) onSignedOut();
    const retryAfter = Number(res.headers.get('retry-after') ?? Number.NaN);
    if (isErrorBody(json)) throw new ApiProblem(res.status, json.error, json.message, Number.isFinite(retryAfter) ? retryAfter : undefined);
    throw new ApiProblem(res.status, `HTTP ${res.status}`, text.trim() || res.statusText || 'the request failed');
  }
  return { status: res.status, json };
}

/** PUT `file`'s bytes as they are (a workspace file upload); the status answers whether it was made (201) or replaced (200). */
export async function putBytes(path: string, file: Blob): Promise<number> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: 'PUT',
      headers: { accept: 'application/json', 'content-type': 'application/octet-stream', 'x-csrf-token': csrfToken },
      credentials: 'same-origin',
      body: file,
    });
  } catch {
    throw new ApiProblem(0, 'NETWORK', 'The box did not answer: check that the management API is running.');
  }
  return (await answer(res, path)).status;
}

/** Tries of one PUT refused as too many at once (429) before its refusal is the answer. */
const PUT_TRIES = 5;

/** putBytes, tried again after the wait a 429 asks for (many files sent at once may pass the box's request rate). */
export async function putBytesRetrying(path: string, file: Blob): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await putBytes(path, file);
    } catch (err) {
      if (!(err instanceof ApiProblem) || err.status !== 429 || attempt === PUT_TRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, (err.retryAfterSec ?? 1) * 1000));
    }
  }
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

/** A NIP-07 signer, as Nostr browser extensions provide it on `window.nostr`. */
export interface NostrSigner {
  signEvent(event: { kind: number; created_at: number; tags: string[][]; content: string }): Promise<Record<string, unknown>>;
}

/** The browser's NIP-07 signer, if an extension provides one. */
export function nostrSigner(): NostrSigner | undefined {
  const candidate = (globalThis as { nostr?: Partial<NostrSigner> }).nostr;
  return typeof candidate?.signEvent === 'function' ? (candidate as NostrSigner) : undefined;
}

/**
 * Sign in with NIP-98 where the box lists operator keys: the signer signs an HTTP-auth event
 * (kind 27235) for exactly this POST, its URL and the sha256 of its body `{}`.
 */
export async function signInWithNostr(signer: NostrSigner): Promise<SessionInfo> {
  const body = '{}';
  if (!crypto.subtle) throw new ApiProblem(0, 'INSECURE', 'Signing in with Nostr needs a secure page: open the dashboard over https or on 127.0.0.1.');
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(body)));
  const payload = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
  const url = new URL('/ui/session', location.href).href;
  let event: Record<string, unknown>;
  try {
    event = await signer.signEvent({
      kind: 27235,
      created_at: Math.floor(Date.now() / 1000),
      tags: [
        ['u', url],
        ['method', 'POST'],
        ['payload', payload],
      ],
      content: '',
    });
  } catch (err) {
    throw new ApiProblem(0, 'SIGNER', `The Nostr signer did not sign: ${err instanceof Error ? err.message : String(err)}`);
  }
  // The event is ASCII JSON (hex fields, the URL, an empty content), so btoa takes it as is.
  return call<SessionInfo>('POST', '/ui/session', body, { authorization: `Nostr ${btoa(JSON.stringify(event))}` });
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

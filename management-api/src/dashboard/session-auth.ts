// Checks of a dashboard session: the cookie, the box's own Origin (mutations, WebSocket upgrades) and the CSRF token of mutations.
import type { FastifyReply, FastifyRequest } from 'fastify';
import '../auth/caller.js';
import { ApiError } from '../errors.js';
import { sameSecret, type SessionStore, type UiSession } from './session-store.js';

/** Name of the session cookie. */
export const SESSION_COOKIE = 'agentbox_session';
/** Header that carries the session's CSRF token on mutations. */
export const CSRF_HEADER = 'x-csrf-token';

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Parses a Cookie header (`app.parseCookie` of @fastify/cookie). */
export type CookieParser = (header: string) => Record<string, string | undefined>;

/** The session cookie's value in `request`, if any (parsed only here: bearer requests never pay for it). */
export function sessionCookie(request: FastifyRequest, parse: CookieParser): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parse(header)[SESSION_COOKIE];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The origin the request was sent to: scheme, Host header (host and port), normalised like a
 * browser's `Origin` (default ports dropped). Undefined when the Host header is unusable.
 */
export function ownOrigin(request: FastifyRequest): string | undefined {
  return originOf(`${request.protocol}://${request.host}`);
}

/** Refuse a request whose Origin is missing or not the box's own (undefined when it matches). */
export function checkOrigin(request: FastifyRequest): ApiError | undefined {
  const sent = request.headers.origin;
  if (sent === undefined)
    return new ApiError(
      'ABX_ERR_CSRF',
      "this request needs an Origin header equal to the box's own origin (browsers send it; send it from the dashboard page)",
    );
  const own = ownOrigin(request);
  if (own === undefined || originOf(sent) !== own)
    return new ApiError('ABX_ERR_CSRF', `the Origin ${JSON.stringify(sent.slice(0, 200))} is not this box's origin ${own ?? '(unknown Host)'}`);
  return undefined;
}

/** A mutation with a session: its Origin must be the box's own and `x-csrf-token` the session's token. */
export function checkCsrf(request: FastifyRequest, session: UiSession): ApiError | undefined {
  const origin = checkOrigin(request);
  if (origin) return origin;
  const token = request.headers[CSRF_HEADER];
  if (typeof token !== 'string' || !sameSecret(token, session.csrfToken))
    return new ApiError('ABX_ERR_CSRF', `a mutation with the dashboard session needs the session's CSRF token in ${CSRF_HEADER} (GET /ui/session answers it)`);
  return undefined;
}

/** Whether the request asks to become a WebSocket. */
export function isWebSocketUpgrade(request: FastifyRequest): boolean {
  return (request.headers.upgrade ?? '').toLowerCase() === 'websocket';
}

/** Whether the method changes state (anything but GET, HEAD, OPTIONS). */
export function isMutation(method: string): boolean {
  return !SAFE_METHODS.has(method);
}

/**
 * The gate's session check, run only for a request with a Cookie header and no Authorization
 * header: undefined when it carries no session cookie (the gate answers 401 as without any
 * credential), 'accepted', or the error to answer (401 for an unknown, expired or revoked
 * session; 403 ABX_ERR_CSRF for a mutation without the right Origin and token).
 */
export function sessionAuthenticator(
  store: SessionStore,
  parse: CookieParser,
): (request: FastifyRequest, reply: FastifyReply) => 'accepted' | ApiError | undefined {
  return (request, reply) => {
    const cookie = sessionCookie(request, parse);
    if (cookie === undefined) return undefined;
    const session = store.lookup(cookie);
    if (!session) {
      request.log.warn(
        { event: 'AuthRejected', scheme: 'session', route: request.routeOptions.url ?? request.url },
        'rejected an unknown, expired or signed-out dashboard session',
      );
      return new ApiError('ABX_ERR_AUTH_INVALID', 'the dashboard session is unknown, expired or signed out: sign in again (POST /ui/session)');
    }
    // A WebSocket upgrade is a GET no browser keeps to its own origin (no CORS), and the page cannot
    // add the CSRF token to it: the box's own Origin is required, so no other site drives a terminal.
    if (isMutation(request.method) || isWebSocketUpgrade(request)) {
      const refused = isMutation(request.method) ? checkCsrf(request, session) : checkOrigin(request);
      if (refused) {
        request.log.warn({ event: 'CsrfRejected', route: request.routeOptions.url ?? request.url }, refused.message);
        return refused;
      }
    }
    cutWhenSessionEnds(request, reply, session);
    // Whose action it is, for the audit trail (auth/caller.ts).
    request.dashboardSession = session.via;
    return 'accepted';
  };
}

/** The record a live stream gets last when its session ends; the page then closes it instead of reconnecting. */
export const SESSION_ENDED_RECORD = 'event: session-ended\ndata: {}\n\n';

/**
 * A request still open when its session ends is cut then, so a signed-out or expired session
 * stops receiving data at once. A live stream (the dashboard's, an agent's output, the events
 * feed: an EventSource asked for `text/event-stream` and is being answered) ends cleanly with a
 * `session-ended` record, so the browser neither logs a broken response nor reconnects; anything
 * else still in flight is dropped.
 */
function cutWhenSessionEnds(request: FastifyRequest, reply: FastifyReply, session: UiSession): void {
  const cut = (): void => {
    const res = reply.raw;
    if (res.headersSent && !res.writableEnded && (request.headers.accept ?? '').includes('text/event-stream')) res.end(SESSION_ENDED_RECORD);
    else res.destroy();
  };
  session.ended.addEventListener('abort', cut, { once: true });
  // A response's close: finished, or its connection gone.
  reply.raw.once('close', () => session.ended.removeEventListener('abort', cut));
}

function originOf(text: string): string | undefined {
  try {
    const url = new URL(text);
    return url.origin === 'null' ? undefined : url.origin;
  } catch {
    return undefined;
  }
}

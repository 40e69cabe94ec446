// POST/GET/DELETE /ui/session: the dashboard's sign-in (API key, or NIP-98 where listed), session check and sign-out.
//
// CSRF protection is a synchronizer token kept in the server-side session (session-store.ts),
// not @fastify/csrf-protection: that plugin keeps its secret either in a second cookie (a
// double-submit scheme) or in @fastify/session / @fastify/secure-session, and these sessions live
// in the API's own memory store. A random per-session token, answered by these routes and
// compared in constant time by the gate, binds the token to the session without a second cookie
// or a hook on every request.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import type {} from '@fastify/rate-limit';
import '../app-state.js';
import { nip98Authenticate, nip98CheckBody, nip98HashBody, NOSTR_SCHEME } from '../auth/nip98-auth.js';
import { ApiError, errorBodySchema } from '../errors.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import type { Nip98Verifier } from '../mesh/nip98.js';
import type { DashboardMetrics } from './metrics.js';
import { checkCsrf, checkOrigin, SESSION_COOKIE, sessionCookie } from './session-auth.js';
import { UI_SECURITY_HEADERS } from './static-files.js';
import { sameSecret, sessionView, type SessionStore, type UiSession } from './session-store.js';

/** Sign-in attempts per client address and minute on the operator's listener: enough for people, a wall for key guessing. Agents reach only their own listener, where sign-in is refused and counted apart (http/agent-listener.ts). */
export const SIGN_IN_LIMIT = { max: 30, timeWindow: 60_000 };

/** What the session routes need. */
export interface SessionRouteOptions {
  store: SessionStore;
  /** The box API key. */
  key: string;
  /** NIP-98 checks of operator keys; absent, a `Nostr` header is refused like a wrong key. */
  nip98?: Nip98Verifier;
  metrics: DashboardMetrics;
}

const viewSchema = {
  type: 'object',
  properties: { csrfToken: { type: 'string' }, expiresAt: { type: 'string' }, via: { type: 'string', enum: ['api-key', 'nip98'] } },
} as const;
const errors = { 400: errorBodySchema, 401: errorBodySchema, 403: errorBodySchema, 429: errorBodySchema } as const;
// Not part of the public API document: the dashboard's own plumbing. Public to the gate: each route checks what it needs itself.
const hidden = { hide: true } as const;

/** Register the session routes (rate limited sign-in; the cookie is HttpOnly, SameSite=Strict, Path=/). */
export function registerSessionRoutes(app: FastifyInstance, options: SessionRouteOptions): void {
  const { store, key, nip98, metrics } = options;
  const ttlSec = Math.floor(store.ttlMs / 1000);
  const echoId = (request: FastifyRequest, reply: FastifyReply): void =>
    void reply.headers(UI_SECURITY_HEADERS).header(REQUEST_ID_HEADER, request.id).header('cache-control', 'no-store');

  app.post<{ Body: { apiKey?: string } }>(
    '/ui/session',
    {
      bodyLimit: 4096,
      config: { public: true, rateLimit: SIGN_IN_LIMIT },
      onRequest: async (request, reply) => {
        echoId(request, reply);
        const refused = checkOrigin(request);
        if (refused) {
          metrics.signIns.inc({ result: 'origin', via: 'none' });
          throw refused;
        }
        const header = request.headers.authorization;
        if (header === undefined || !NOSTR_SCHEME.test(header)) return;
        const error = nip98
          ? await nip98Authenticate(nip98, header, request, reply)
          : new ApiError('ABX_ERR_AUTH_INVALID', 'NIP-98 sign-in is off on this box (no mesh.operator_pubkeys)');
        if (error) {
          metrics.signIns.inc({ result: 'invalid', via: 'nip98' });
          throw error;
        }
      },
      ...(nip98 ? { preParsing: nip98HashBody, preValidation: nip98CheckBody(nip98) } : {}),
      schema: {
        ...hidden,
        summary: 'Dashboard sign-in: the API key in the body, or a NIP-98 signed request (body {}); sets the session cookie',
        body: { type: 'object', additionalProperties: false, properties: { apiKey: { type: 'string', minLength: 1, maxLength: 512 } } },
        response: { 201: viewSchema, ...errors },
      },
    },
    async (request, reply) => {
      let via: UiSession['via'];
      if (request.nip98) via = 'nip98';
      else {
        const presented = request.body?.apiKey;
        if (presented === undefined) {
          metrics.signIns.inc({ result: 'missing', via: 'none' });
          throw new ApiError('ABX_ERR_AUTH_REQUIRED', 'sign in with {"apiKey": "<the box API key>"} (or a NIP-98 signed request where operators are listed)');
        }
        if (!sameSecret(presented, key)) {
          metrics.signIns.inc({ result: 'invalid', via: 'api-key' });
          request.log.warn({ event: 'AuthRejected', scheme: 'session', route: '/ui/session' }, 'rejected a dashboard sign-in with a wrong API key');
          throw new ApiError('ABX_ERR_AUTH_INVALID', 'that is not the box API key (<state>/secrets/api-key)');
        }
        via = 'api-key';
      }
      const { cookie, session } = store.create(via);
      metrics.signIns.inc({ result: 'ok', via });
      request.log.info({ event: 'DashboardSignIn', via, expiresAt: session.expiresAt.toISOString() }, `dashboard sign-in (${via})`);
      // Secure only where the request came over TLS: a plain-http box on 127.0.0.1 must still work.
      void reply.setCookie(SESSION_COOKIE, cookie, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: ttlSec, secure: request.protocol === 'https' });
      void reply.code(201);
      return sessionView(session);
    },
  );

  app.get(
    '/ui/session',
    {
      config: { public: true },
      schema: {
        ...hidden,
        summary: 'The signed-in session: its CSRF token and expiry; 401 when not signed in',
        response: { 200: viewSchema, 401: errorBodySchema },
      },
    },
    async (request, reply) => {
      echoId(request, reply);
      return sessionView(current(request).session);
    },
  );

  app.delete(
    '/ui/session',
    {
      config: { public: true },
      schema: {
        ...hidden,
        summary: 'Sign out: revoke the session and clear the cookie (Origin and x-csrf-token required)',
        response: { 204: { type: 'null' }, 401: errorBodySchema, 403: errorBodySchema },
      },
    },
    async (request, reply) => {
      echoId(request, reply);
      const { cookie, session } = current(request);
      const refused = checkCsrf(request, session);
      if (refused) throw refused;
      store.revoke(cookie);
      request.log.info({ event: 'DashboardSignOut', via: session.via }, 'dashboard sign-out');
      void reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'strict', path: '/' }).code(204);
    },
  );

  function current(request: FastifyRequest): { cookie: string; session: UiSession } {
    const cookie = sessionCookie(request, (h) => app.parseCookie(h));
    const session = cookie === undefined ? undefined : store.lookup(cookie);
    if (cookie === undefined || !session)
      throw new ApiError('ABX_ERR_AUTH_REQUIRED', 'not signed in to the dashboard (or the session expired): POST /ui/session');
    return { cookie, session };
  }
}

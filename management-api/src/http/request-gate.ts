// The gate of every authenticated route: echo the request id, refuse new work while closing, require the API key.
import type { FastifyInstance, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { bearerAuthenticator } from '../auth/bearer-auth.js';
import { ApiError } from '../errors.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** The gate, for the not-found handler (unknown URLs need the key like any non-probe route). */
export type Gate = onRequestHookHandler & preHandlerHookHandler;

/**
 * Attach the gate to every route as it is declared, except public ones (`config.public`: the
 * probes). Per route rather than global, so a probe pays for no hook and no per-request
 * `request.routeOptions` lookup to learn that it is public; probes echo the request id
 * themselves and report shutdown through readiness. Requests that arrive while the app closes
 * get the uniform error body (ABX_ERR_SHUTTING_DOWN). Call this before any route is registered.
 */
export function registerRequestGate(app: FastifyInstance, key: string): Gate {
  const authenticate = bearerAuthenticator(key);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const gate: Gate = function (this: unknown, request, reply, done) {
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) return done(new ApiError('ABX_ERR_SHUTTING_DOWN', 'the API is shutting down'));
    done(authenticate(request, reply));
  } as Gate;
  app.addHook('onRoute', (route) => {
    if (route.config?.public === true) return;
    // First, so nothing else (rate limiting, body parsing) runs for a request without the key.
    const existing = route.onRequest;
    route.onRequest = existing === undefined ? [gate] : [gate, ...(Array.isArray(existing) ? existing : [existing])];
  });
  return gate;
}

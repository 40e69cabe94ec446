// The one onRequest hook: echo the request id, refuse new work while closing, require the API key.
import type { FastifyInstance } from 'fastify';
import { bearerAuthenticator } from '../auth/bearer-auth.js';
import { ApiError } from '../errors.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/**
 * Register the gate every request passes first. The three checks share one hook on purpose:
 * each hook is a trip through fastify's hook runner on every request, probes included.
 * Requests that arrive while the app closes get the uniform error body (ABX_ERR_SHUTTING_DOWN).
 */
export function registerRequestGate(app: FastifyInstance, key: string): void {
  const authenticate = bearerAuthenticator(key);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    if (closing) return done(new ApiError('ABX_ERR_SHUTTING_DOWN', 'the API is shutting down'));
    done(authenticate(request, reply));
  });
}

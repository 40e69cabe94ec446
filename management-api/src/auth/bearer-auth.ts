// Bearer authentication of API requests against the box API key, in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Probe routes set this: they answer without authentication. */
    public?: boolean;
  }
}

/** Outcome of checking an Authorization header. */
export type BearerVerdict = 'ok' | 'missing' | 'invalid';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * A checker for `Authorization: Bearer <key>`. Both sides are hashed first, so the comparison is
 * between equal-length digests and timingSafeEqual leaks neither content nor length.
 */
export function bearerVerifier(key: string): (header: string | undefined) => BearerVerdict {
  const expected = digest(key);
  return (header) => {
    if (!header) return 'missing';
    const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header);
    const presented = digest(match?.[1] ?? '');
    // Compare even when the scheme is wrong, so timing does not reveal which check failed.
    const equal = timingSafeEqual(presented, expected);
    return match && equal ? 'ok' : 'invalid';
  };
}

/**
 * The check the request gate runs on every non-public request: undefined when the key is right,
 * else the 401 error to answer with (and the WWW-Authenticate header set). Public routes
 * (`config.public`, the probes) never reach it; unknown routes do, so they need the key too.
 */
export function bearerAuthenticator(key: string): (request: FastifyRequest, reply: FastifyReply) => ApiError | undefined {
  const verify = bearerVerifier(key);
  return (request, reply) => {
    const verdict = verify(request.headers.authorization);
    if (verdict === 'ok') return undefined;
    void reply.header('www-authenticate', 'Bearer realm="agentbox"');
    if (verdict === 'missing') return new ApiError('ABX_ERR_AUTH_REQUIRED', 'this route requires the API key: send "Authorization: Bearer <key>"');
    request.log.warn({ event: 'AuthRejected', route: request.routeOptions.url ?? request.url }, 'rejected a request with a wrong API key');
    return new ApiError('ABX_ERR_AUTH_INVALID', 'the Authorization header does not carry the box API key');
  };
}

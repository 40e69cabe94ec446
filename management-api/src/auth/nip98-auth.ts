// NIP-98 authentication of API requests: the signed event is checked when the request arrives,
// its payload hash once the body has been read (hashed as it streams in, whatever its type).
import { Transform } from 'node:stream';
import { createHash, type Hash } from 'node:crypto';
import type { FastifyReply, FastifyRequest, preParsingHookHandler, preValidationHookHandler } from 'fastify';
import type { Event } from 'nostr-tools/pure';
import { ApiError } from '../errors.js';
import type { Nip98Verifier } from '../mesh/nip98.js';

/** What an accepted NIP-98 request carries until its body has been checked. */
export interface Nip98Request {
  event: Event;
  /** sha256 (hex) and length of the body as received; unset until the body is read. */
  bodyHash?: string;
  bodyLength: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the request authenticated with NIP-98. */
    nip98: Nip98Request | null;
  }
}

/** The scheme of an Authorization header that carries a NIP-98 token. */
export const NOSTR_SCHEME = /^Nostr[ ]+(\S+)[ ]*$/i;

/** The absolute URL a client signs for this request: scheme, Host header, path and query as sent. */
export function requestUrl(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${request.url}`;
}

/** Check the NIP-98 token in `header`; undefined when accepted (and `request.nip98` set), else the 401 to answer. */
export async function nip98Authenticate(verifier: Nip98Verifier, header: string, request: FastifyRequest, reply: FastifyReply): Promise<ApiError | undefined> {
  const token = NOSTR_SCHEME.exec(header)?.[1] ?? '';
  const verdict = await verifier.check(token, requestUrl(request), request.method);
  if (verdict.ok) {
    request.nip98 = { event: verdict.event, bodyLength: 0 };
    return undefined;
  }
  void reply.header('www-authenticate', 'Nostr realm="agentbox"');
  request.log.warn(
    { event: 'AuthRejected', scheme: 'nostr', reason: verdict.reason, route: request.routeOptions.url ?? request.url },
    `rejected a NIP-98 request: ${verdict.message}`,
  );
  return new ApiError('ABX_ERR_AUTH_INVALID', verdict.message);
}

/** Hashes the body of a NIP-98 request as it streams to the body parser. */
export const nip98HashBody: preParsingHookHandler = (request, _reply, payload, done) => {
  const state = request.nip98;
  if (!state) return done(null, payload);
  const hash: Hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, next) {
      hash.update(chunk);
      state.bodyLength += chunk.length;
      next(null, chunk);
    },
    flush(next) {
      state.bodyHash = hash.digest('hex');
      next();
    },
  });
  payload.on('error', (err) => tap.destroy(err));
  done(null, payload.pipe(tap));
};

/** After parsing: the body must match the token's payload tag. */
export function nip98CheckBody(verifier: Nip98Verifier): preValidationHookHandler {
  return (request, reply, done) => {
    const state = request.nip98;
    if (!state) return done();
    const verdict = verifier.checkPayload(state.event, state.bodyHash, state.bodyLength);
    if (verdict.ok) return done();
    void reply.header('www-authenticate', 'Nostr realm="agentbox"');
    request.log.warn(
      { event: 'AuthRejected', scheme: 'nostr', reason: verdict.reason, route: request.routeOptions.url ?? request.url },
      `rejected a NIP-98 request: ${verdict.message}`,
    );
    done(new ApiError('ABX_ERR_AUTH_INVALID', verdict.message));
  };
}

// Request ids: honour a sane incoming X-Request-Id (so traces join up across services), else mint one.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The header read and echoed. */
export const REQUEST_ID_HEADER = 'x-request-id';

// Bounded and plain, so a client cannot inject log noise or huge values through the id.
const acceptable = /^[A-Za-z0-9._:-]{1,64}$/;

// A random prefix per process and a counter: unique across restarts and boxes in practice, and
// far cheaper per request than a random UUID.
const prefix = randomBytes(4).toString('hex');
let counter = 0;

/** fastify `genReqId`: the caller's id when acceptable, otherwise `<process prefix>-<counter>`. */
export function requestId(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && acceptable.test(incoming) ? incoming : `${prefix}-${(++counter).toString(36)}`;
}

// One error shape for every response: `{error: ABX_ERR_*, message}`, with the table's HTTP status.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { ApiError, statusOf, type ErrorBody, type ErrorCode } from '../errors.js';

/** Status, body and headers for any error thrown while handling a request. */
export function errorResponse(err: unknown): { status: number; body: ErrorBody; headers: Readonly<Record<string, string>> } {
  if (err instanceof ApiError) return { status: err.statusCode, body: { error: err.code, message: err.message }, headers: err.headers };
  const e = err as Partial<FastifyError> & Error;
  const code = codeFor(e);
  // 5xx messages may carry internals (paths, hosts): the client gets a generic text, the log the details.
  const message = statusOf(code) >= 500 ? 'internal error; see the API log for this request id' : e.message;
  return { status: statusOf(code), body: { error: code, message }, headers: {} };
}

function codeFor(e: Partial<FastifyError> & Error): ErrorCode {
  if (e.validation) return 'ABX_ERR_VALIDATION';
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'ABX_ERR_BODY_TOO_LARGE';
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'ABX_ERR_UNSUPPORTED_MEDIA_TYPE';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'ABX_ERR_MALFORMED_BODY';
  }
  const status = e.statusCode ?? 500;
  if (status === 400 && e instanceof SyntaxError) return 'ABX_ERR_MALFORMED_BODY';
  if (status === 404) return 'ABX_ERR_NOT_FOUND';
  if (status === 413) return 'ABX_ERR_BODY_TOO_LARGE';
  if (status === 415) return 'ABX_ERR_UNSUPPORTED_MEDIA_TYPE';
  if (status >= 400 && status < 500) return 'ABX_ERR_BAD_REQUEST';
  return 'ABX_ERR_INTERNAL';
}

/**
 * Install the error and not-found handlers. `onUnmatched` observes every answer given without a
 * route; `gate` runs before the not-found answer, so unknown URLs need the API key too.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  options: { onUnmatched?: (request: FastifyRequest, reply: FastifyReply) => void; gate?: preHandlerHookHandler } = {},
): void {
  const { onUnmatched, gate } = options;
  app.setErrorHandler((err, request, reply) => {
    // A refusal before any route matched (say, no API key for an unknown URL) is still a request.
    if (request.is404) onUnmatched?.(request, reply);
    const { status, body, headers } = errorResponse(err);
    if (status >= 500 && body.error === 'ABX_ERR_INTERNAL') {
      request.log.error({ err, event: 'RequestFailed' }, 'request failed');
      // The id in the message too, not only in the header: a CLI or a script that shows the message shows what to look up.
      body.message = `internal error; the API log has what failed under request id ${request.id}`;
    } else request.log.info({ event: 'RequestRejected', error: body.error, status }, body.message);
    void reply.code(status).headers(headers).send(body);
  });
  app.setNotFoundHandler(gate ? { preHandler: gate } : {}, (request, reply) => {
    onUnmatched?.(request, reply);
    const body: ErrorBody = { error: 'ABX_ERR_NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0] ?? ''}` };
    void reply.code(404).send(body);
  });
}

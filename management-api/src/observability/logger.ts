// The API's pino logger: JSON lines, level from the manifest, secrets redacted.
import { pino, stdSerializers, type DestinationStream, type Logger } from 'pino';
import { CENSOR, REDACT_PATHS, scrubSecrets, scrubValue } from '../secrets/redact.js';

/** Log levels the manifest allows. */
export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';

/** Serialised request, as it appears under `req` in request logs. */
interface LoggedRequest {
  method: string;
  url: string;
  headers: Record<string, unknown>;
  remoteAddress?: string;
}

function serializeError(err: unknown): unknown {
  // A code under `error` (RequestRejected's ABX_ERR_*) is text, not an Error: spread, it became one key per character.
  if (typeof err !== 'object' || err === null) return scrubValue(err, 2);
  // The standard serializer returns an object with its own prototype: copy it to plain data so
  // the scrubber descends into it.
  const out = { ...(stdSerializers.err(err as Error) as unknown as Record<string, unknown>) };
  return scrubValue(out, 2);
}

function serializeRequest(req: {
  method: string;
  url: string;
  headers?: Record<string, unknown>;
  ip?: string;
  socket?: { remoteAddress?: string };
}): LoggedRequest {
  // Header values can quote URLs too (referer, origin, forwarded): scrubbed like the request's own.
  return {
    method: req.method,
    url: scrubSecrets(req.url),
    headers: scrubValue({ ...(req.headers ?? {}) }, 1) as Record<string, unknown>,
    remoteAddress: req.ip ?? req.socket?.remoteAddress,
  };
}

/**
 * Create the logger. `destination` defaults to stdout; tests pass a stream to capture lines.
 * Known secret keys are removed by path; credentials inside strings (URLs with passwords,
 * `password=` pairs, bearer tokens) are scrubbed from messages, fields and errors.
 */
export function createLogger(options: {
  level: LogLevel;
  destination?: DestinationStream /** `agentbox.stage` of every line (default `api`). */;
  stage?: string;
}): Logger {
  return pino(
    {
      level: options.level,
      base: { pid: process.pid, 'agentbox.stage': options.stage ?? 'api' },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
      serializers: { err: serializeError, error: serializeError, req: serializeRequest },
      formatters: { log: (object) => scrubValue(object, 3) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          // The message (and printf arguments) may quote a connection string.
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as Parameters<typeof method>;
          method.apply(this, scrubbed);
        },
      },
    },
    options.destination ?? pino.destination({ dest: 1, sync: true }),
  );
}

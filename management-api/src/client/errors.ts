// The client's one error type: the API's `{error: ABX_ERR_*, message}` answer, or a failure to reach it.
import type { ErrorCode } from './generated/api-types.js';

/** What a failure carries: an API code, or one of the client's own for a call that got no API answer. */
export type AgentboxErrorCode =
  | ErrorCode
  | 'ABX_CLIENT_UNREACHABLE'
  | 'ABX_CLIENT_BAD_RESPONSE'
  | 'ABX_CLIENT_ABORTED'
  | 'ABX_CLIENT_INPUT'
  | 'ABX_CLIENT_REDIRECT';

/** A refused or failed call: `code` is the API's `ABX_ERR_*` (or an `ABX_CLIENT_*`), `status` its HTTP status (0 when none came). */
export class AgentboxError extends Error {
  override readonly name = 'AgentboxError';
  constructor(
    readonly code: AgentboxErrorCode,
    readonly status: number,
    message: string,
    /** The request id the API answered with (x-request-id), to find the call in its log. */
    readonly requestId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The error of a non-2xx answer whose body was already read as text. */
export function errorFromAnswer(status: number, text: string, requestId: string | undefined): AgentboxError {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    if (typeof body.error === 'string' && body.error.startsWith('ABX_ERR_')) {
      return new AgentboxError(body.error as ErrorCode, status, typeof body.message === 'string' ? body.message : body.error, requestId);
    }
  } catch {
    // Not the API's JSON (a proxy's page, say): said so below with the first bytes.
  }
  return new AgentboxError('ABX_CLIENT_BAD_RESPONSE', status, `HTTP ${status} without an API error body: ${text.slice(0, 200)}`, requestId);
}

// The one table of API error codes: every error response is `{error: <code>, message}`.

/** Each `ABX_ERR_*` code with its HTTP status and what it means (docs/errors.md lists the same). */
export const errorCodes = {
  ABX_ERR_AUTH_REQUIRED: { status: 401, description: 'The route needs the API key as `Authorization: Bearer <key>` and none was sent.' },
  ABX_ERR_AUTH_INVALID: { status: 401, description: 'An Authorization header was sent but it is not the box API key, or its NIP-98 signed event was refused.' },
  ABX_ERR_AGENT_SCOPE: {
    status: 403,
    description: "The request carries an agent token and the route or resource is outside that agent's scope (the message names the scope).",
  },
  ABX_ERR_AGENT_LISTENER: {
    status: 403,
    description:
      "The request came through the agents' listener (AGENTBOX_API_URL), which serves only agent-token routes, the provider broker, /livez and /ready; the dashboard, sign-in and the API key work on the operator's port only.",
  },
  ABX_ERR_CSRF: {
    status: 403,
    description: "A dashboard session (cookie) was used for a mutation without the box's own Origin or without the session's CSRF token in x-csrf-token.",
  },
  ABX_ERR_VALIDATION: { status: 400, description: 'The request body, query or path parameters do not match the route schema.' },
  ABX_ERR_MALFORMED_BODY: { status: 400, description: 'The request body is not valid JSON (or is empty where JSON is required).' },
  ABX_ERR_BAD_REQUEST: { status: 400, description: 'The request is malformed in another way (for example a bad header).' },
  ABX_ERR_BODY_TOO_LARGE: { status: 413, description: 'The request body exceeds the route body limit.' },
  ABX_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'The request Content-Type is not accepted by the route (send application/json).' },
  ABX_ERR_NOT_FOUND: { status: 404, description: 'No route or no resource with that name.' },
  ABX_ERR_CONFLICT: { status: 409, description: 'The request conflicts with the current state (for example a bead already claimed by someone else).' },
  ABX_ERR_NO_TERMINAL: {
    status: 409,
    description: 'The agent has no terminal to attach to or type into: it was started without `tty`, or it has ended and its terminal is closed.',
  },
  ABX_ERR_PRECONDITION_FAILED: { status: 412, description: 'A conditional request (If-Match / If-None-Match) did not hold.' },
  ABX_ERR_RATE_LIMITED: {
    status: 429,
    description:
      "Too many mutating requests, or more tar downloads at once than the box allows (4 of one agent's workspace, 16 in all); retry after the number of seconds in the Retry-After header.",
  },
  ABX_ERR_ADAPTER_OFF: { status: 503, description: 'The adapter slot behind this route is configured `off` in the manifest.' },
  ABX_ERR_ADAPTER_DEGRADED: {
    status: 503,
    description: 'The adapter slot behind this route is degraded (its backend is unreachable); the API reconnects in the background.',
  },
  ABX_ERR_ADAPTER_UNAVAILABLE: { status: 503, description: 'The adapter backend failed during this request; the slot is marked degraded.' },
  ABX_ERR_ADAPTER_TIMEOUT: { status: 504, description: 'The adapter backend did not answer in time.' },
  ABX_ERR_MESH_SESSION_GONE: {
    status: 410,
    description: 'Mesh host: the session is unknown, ended or evicted (three missed heartbeats); the member registers again (POST /v1/register).',
  },
  ABX_ERR_MESH_REGISTRY_UNAVAILABLE: {
    status: 503,
    description: 'Mesh host: the member registry (SQLite file or Postgres database) cannot answer; the member retries with backoff.',
  },
  ABX_ERR_SANDBOX_UNAVAILABLE: {
    status: 503,
    description: 'Agents run confined (sandbox.enabled) but this host cannot enforce the sandbox; the message names what is missing and no agent was started.',
  },
  ABX_ERR_PROVIDER_UNREACHABLE: {
    status: 502,
    description: 'The provider broker could not reach the provider at its base_url (connection refused, reset or failed).',
  },
  ABX_ERR_PROVIDER_TIMEOUT: { status: 504, description: 'The provider did not send its response headers within the broker timeout.' },
  ABX_ERR_PROVIDER_KEY_MISSING: {
    status: 503,
    description: "The provider's key is not available to the broker (its env_var is unset or empty in the API's environment).",
  },
  ABX_ERR_PROVIDER_PATH: {
    status: 400,
    description:
      "The provider broker refused the path: it leaves the provider's base_url path, or could be read so by some parser (a dot segment, an encoded dot, slash, backslash or percent, a backslash, an empty segment).",
  },
  ABX_ERR_DISK_LOW: {
    status: 507,
    description:
      'The state volume or the workspace has less free space than resources.min_free_disk: no new agent is started, nothing written to a workspace and no snapshot taken until space returns (the message names the path, free bytes and threshold); or a write to a workspace did not fit: its declared length is more than the workspace volume may still take above that threshold, or the disk ran out of space while it was written (nothing of it kept).',
  },
  ABX_ERR_EGRESS_UNAVAILABLE: {
    status: 503,
    description: 'The egress proxy cannot be reached over its control socket, or does not run (sandbox.enabled = false, or the API runs outside a box).',
  },
  ABX_ERR_AUDIT_UNAVAILABLE: {
    status: 503,
    description:
      'The events slot is in adapters.critical and cannot record this action now, so the action was refused (or, for a spawn whose record failed, the agent was ended).',
  },
  ABX_ERR_POLICY_DENIED: {
    status: 403,
    description:
      "The box's [policy] refused the action (a spawn, a provider call, a change of the egress allowlist): the message names the deciding rule (its index and id) or the default, why, and the policy version; an ask is refused at once for an autonomous agent; for a supervised one it is held as an approval request and refused when denied, timed out, or no approver is reachable.",
  },
  ABX_ERR_APPROVAL_NOT_FOUND: {
    status: 404,
    description: 'No approval request has that id (it never existed, or was decided long enough ago to be forgotten).',
  },
  ABX_ERR_APPROVAL_DECIDED: { status: 409, description: 'The approval request was decided already (approved, denied or timed out): a decision counts once.' },
  ABX_ERR_APPROVAL_CHANGED: {
    status: 409,
    description:
      "The signed decision states another digest or policy version than the pending request's: it was made for a changed request and is refused; the request stays pending.",
  },
  ABX_ERR_APPROVAL_SIGNATURE: {
    status: 403,
    description:
      'The signed decision is refused: not a valid Nostr event of kind 4751, a signer not in mesh.operator_pubkeys, a statement that does not match the call (request, decision, scope, expiry), not fresh, or used before (a replay); the request stays pending.',
  },
  ABX_ERR_INPUT_REQUEST_NOT_FOUND: {
    status: 404,
    description: "No input request has that id (it never existed, was closed long enough ago to be forgotten, or, for an agent's token, is another agent's).",
  },
  ABX_ERR_INPUT_REQUEST_CLOSED: {
    status: 409,
    description:
      'The input request is no longer open: answered already, withdrawn (the agent wrote on past its prompt, someone typed into its terminal, or the agent took it back) or ended with its agent; the message says which.',
  },
  ABX_ERR_INPUT_REQUESTS_FULL: {
    status: 429,
    description: 'An agent may hold 4 open input requests and the box 256 in all: answer or withdraw some before asking again.',
  },
  ABX_ERR_FILE_PATH: {
    status: 400,
    description:
      'A workspace file path was refused: empty, absolute, with a `..` or `.` segment, an empty segment, a NUL or control character, too long, or passing through a symbolic link (links inside a workspace are listed, never followed).',
  },
  ABX_ERR_FILE_TYPE: {
    status: 409,
    description:
      'The workspace entry is not of the kind the request needs: a directory where a file is read or written (or the reverse), a symbolic link, FIFO, socket or device (never read or written through), a non-empty directory deleted without recursive, or a file with several hard links the agent does not own.',
  },
  ABX_ERR_FILE_TOO_LARGE: {
    status: 413,
    description:
      "A workspace upload is over a limit: a file over the per-file size, a tar over its entry count or total size, or what the agent's disk budget (sandbox.limits.disk) has left; or a workspace too large to snapshot (its capture needed more memory than a capture thread has) or nested too deep to snapshot or download (over 128 directory levels), or whose sparse files hold more holes than a snapshot reads through (the agent's disk budget), or holding more entries than the agent's entry budget (sandbox.limits.entries; a fork of such a snapshot too). The message names the limit.",
  },
  ABX_ERR_TAR_REFUSED: {
    status: 400,
    description:
      'A tar upload holds an entry that is refused (a name absolute or with `..`, a hard link, a device, FIFO or other special file, a symbolic link leading outside the workspace, a file written through a symbolic link) or is not a well-formed tar; nothing was written.',
  },
  ABX_ERR_SHUTTING_DOWN: { status: 503, description: 'The API is closing (SIGTERM received) and accepts no new requests.' },
  ABX_ERR_INTERNAL: { status: 500, description: 'An unexpected error; details are in the API log under the request id.' },
} as const satisfies Record<`ABX_ERR_${string}`, { status: number; description: string }>;

/** One of the documented error codes. */
export type ErrorCode = keyof typeof errorCodes;

/** The body of every error response. */
export interface ErrorBody {
  error: ErrorCode;
  message: string;
}

/** JSON schema of {@link ErrorBody}, for route response declarations. */
export const errorBodySchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: { error: { type: 'string' }, message: { type: 'string' } },
} as const;

/** The error responses a route declares: each status answers with {@link errorBodySchema}. */
export function errorResponses<const S extends readonly number[]>(...statuses: S): Record<S[number], typeof errorBodySchema> {
  return Object.fromEntries(statuses.map((status) => [status, errorBodySchema])) as Record<S[number], typeof errorBodySchema>;
}

/** An error that maps to one table entry; the error handler answers with its status and code. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers (for example Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.statusCode = errorCodes[code].status;
  }
}

/** HTTP status of `code`. */
export function statusOf(code: ErrorCode): number {
  return errorCodes[code].status;
}

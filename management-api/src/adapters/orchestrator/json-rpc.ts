// The stdio orchestrator protocol: JSON-RPC 2.0 messages, one per line, its methods and its error codes.
import { ApiError } from '../../errors.js';
import { AdapterConflictError, AdapterInputError, AdapterNotFoundError, AdapterPreconditionError, AdapterUnavailableError } from '../../adapter-errors.js';
import type { AgentProcess, OutputChunk } from './orchestrator-adapter.js';

/** Sent in `initialize`; a server answering another protocol is refused. */
export const PROTOCOL = 'agentbox.orchestrator/1';

/** A request (with `id`) or a notification (without). */
export interface RpcRequest {
  jsonrpc: '2.0';
  id?: number | string | null;
  method: string;
  params?: unknown;
}

/** The error member of a failed response. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A response: exactly one of `result` and `error`. */
export interface RpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: RpcError;
}

/** Error codes: JSON-RPC's own, then the protocol's (in the -32000…-32099 server range). */
export const RPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  UNAVAILABLE: -32003,
  NOT_FOUND: -32004,
  CONFLICT: -32009,
  PRECONDITION_FAILED: -32012,
} as const;

/** Result of `agent.output`: chunks after `after`, and whether the agent's output has ended with them. */
export interface OutputPage {
  chunks: OutputChunk[];
  done: boolean;
}

/** Result of `agent.list`. */
export interface AgentList {
  agents: AgentProcess[];
}

/** The JSON-RPC error for an error thrown while serving a request. */
export function toRpcError(err: unknown): RpcError {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof AdapterInputError) return { code: RPC.INVALID_PARAMS, message };
  if (err instanceof AdapterNotFoundError) return { code: RPC.NOT_FOUND, message };
  if (err instanceof AdapterConflictError) return { code: RPC.CONFLICT, message };
  if (err instanceof AdapterPreconditionError) return { code: RPC.PRECONDITION_FAILED, message };
  if (err instanceof AdapterUnavailableError) return { code: RPC.UNAVAILABLE, message };
  return { code: RPC.INTERNAL_ERROR, message };
}

/**
 * The adapter error for a JSON-RPC error answer to `method`: client errors keep their meaning
 * (not found, conflict, bad input); a method the server lacks or reports unavailable makes the
 * slot unavailable; anything else is an internal error of this one call.
 */
export function fromRpcError(error: RpcError, method: string): Error {
  const message = typeof error.message === 'string' ? error.message.slice(0, 500) : 'no message';
  switch (error.code) {
    case RPC.INVALID_PARAMS:
      return new AdapterInputError(message);
    case RPC.NOT_FOUND:
      return new AdapterNotFoundError(message.replace(/ not found$/, ''));
    case RPC.CONFLICT:
      return new AdapterConflictError(message);
    case RPC.PRECONDITION_FAILED:
      return new AdapterPreconditionError(message);
    case RPC.UNAVAILABLE:
      return new AdapterUnavailableError('orchestrator', message);
    case RPC.METHOD_NOT_FOUND:
      return new AdapterUnavailableError('orchestrator', `the orchestrator command does not implement ${method} (${PROTOCOL})`);
    default:
      return new ApiError('ABX_ERR_INTERNAL', `the orchestrator failed ${method}: ${message}`);
  }
}

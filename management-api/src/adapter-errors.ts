// Errors adapters raise, and the sandbox, credentials and egress code the orchestrator drives; each carries the API error code the HTTP layer answers with.
import { ApiError } from './errors.js';
import type { SlotName } from './adapters/adapter.js';

/** The slot is configured `off`: every operation rejects with this (503 ABX_ERR_ADAPTER_OFF). */
export class AdapterOffError extends ApiError {
  override name = 'AdapterOffError';
  constructor(
    readonly slot: SlotName,
    operation: string,
  ) {
    super('ABX_ERR_ADAPTER_OFF', `adapter slot "${slot}" is off in the manifest; ${operation} is unavailable (set adapters.${slot} to enable it)`);
  }
}

/** The slot is degraded: the resolver refuses operations until it reconnects (503 ABX_ERR_ADAPTER_DEGRADED). */
export class AdapterDegradedError extends ApiError {
  override name = 'AdapterDegradedError';
  constructor(
    readonly slot: SlotName,
    readonly reason: string,
  ) {
    super('ABX_ERR_ADAPTER_DEGRADED', `adapter slot "${slot}" is degraded (${reason}); reconnecting in the background`);
  }
}

/**
 * The backend failed during an operation (connection lost, server error). Adapters throw this
 * for backend failures, so the resolver can mark the slot degraded (503 ABX_ERR_ADAPTER_UNAVAILABLE).
 */
export class AdapterUnavailableError extends ApiError {
  override name = 'AdapterUnavailableError';
  constructor(
    readonly slot: SlotName,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super('ABX_ERR_ADAPTER_UNAVAILABLE', `adapter slot "${slot}" backend unavailable: ${detail}`);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** The backend did not answer in time (504 ABX_ERR_ADAPTER_TIMEOUT). */
export class AdapterTimeoutError extends ApiError {
  override name = 'AdapterTimeoutError';
  constructor(
    readonly slot: SlotName,
    operation: string,
    ms: number,
  ) {
    super('ABX_ERR_ADAPTER_TIMEOUT', `adapter slot "${slot}" did not complete ${operation} within ${ms} ms`);
  }
}

/** The named item does not exist (404 ABX_ERR_NOT_FOUND). */
export class AdapterNotFoundError extends ApiError {
  override name = 'AdapterNotFoundError';
  constructor(what: string) {
    super('ABX_ERR_NOT_FOUND', `${what} not found`);
  }
}

/** The operation conflicts with the current state, e.g. a bead claimed by another agent (409 ABX_ERR_CONFLICT). */
export class AdapterConflictError extends ApiError {
  override name = 'AdapterConflictError';
  constructor(message: string) {
    super('ABX_ERR_CONFLICT', message);
  }
}

/** A conditional write's precondition (ETag) did not hold (412 ABX_ERR_PRECONDITION_FAILED). */
export class AdapterPreconditionError extends ApiError {
  override name = 'AdapterPreconditionError';
  constructor(message: string) {
    super('ABX_ERR_PRECONDITION_FAILED', message);
  }
}

/** Input the route schema could not express but the adapter refuses (400 ABX_ERR_VALIDATION). */
export class AdapterInputError extends ApiError {
  override name = 'AdapterInputError';
  constructor(message: string) {
    super('ABX_ERR_VALIDATION', message);
  }
}

/**
 * A critical slot could not connect at start. The server exits 1 on this (supervisord restarts it).
 */
export class FatalAdapterError extends Error {
  override name = 'FatalAdapterError';
  constructor(
    readonly slot: SlotName,
    readonly reason: string,
  ) {
    super(`critical adapter slot "${slot}" failed to connect: ${reason}`);
  }
}

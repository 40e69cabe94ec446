// Wraps a slot's operations: refuse while degraded, measure every call, trace every call.
import { performance } from 'node:perf_hooks';
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ApiError } from '../errors.js';
import type { ApiMetrics } from '../api-metrics.js';
import type { SlotName } from './adapter.js';
import { AdapterDegradedError, AdapterOffError, AdapterTimeoutError, AdapterUnavailableError } from '../adapter-errors.js';
import { isSlotUsable } from './slot-state.js';
import type { SlotSupervisor } from './slot-supervisor.js';
import { OPERATIONS, type SlotOperations } from './slot-types.js';

/** How a dispatched operation ended, as the `outcome` label of `agentbox_adapter_dispatch_total`. */
export type DispatchOutcome = 'ok' | 'rejected' | 'error' | 'off' | 'degraded' | 'unavailable' | 'timeout';

/** Classify an operation's failure. `rejected` is a client-side refusal (not found, conflict, bad input). */
export function outcomeOf(err: unknown): DispatchOutcome {
  if (err instanceof AdapterOffError) return 'off';
  if (err instanceof AdapterDegradedError) return 'degraded';
  if (err instanceof AdapterUnavailableError) return 'unavailable';
  if (err instanceof AdapterTimeoutError) return 'timeout';
  if (err instanceof ApiError && err.statusCode < 500) return 'rejected';
  return 'error';
}

/** The operations of `slot` as routes call them, each wrapped by {@link dispatch}. */
export function dispatchingOperations<S extends SlotName>(slot: S, supervisor: SlotSupervisor, metrics: ApiMetrics, tracer: Tracer): SlotOperations<S> {
  const operations: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const method of OPERATIONS[slot] as readonly string[]) {
    operations[method] = (...args) => dispatch(supervisor, method, args, metrics, tracer);
  }
  return Object.freeze(operations) as unknown as SlotOperations<S>;
}

async function dispatch(supervisor: SlotSupervisor, method: string, args: unknown[], metrics: ApiMetrics, tracer: Tracer): Promise<unknown> {
  const { slot, impl } = supervisor.identity;
  const labels = { slot, impl, method };
  const attributes = { 'agentbox.adapter.slot': slot, 'agentbox.adapter.impl': impl, 'agentbox.adapter.method': method };
  return tracer.startActiveSpan(`adapter ${slot}.${method}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    const started = performance.now();
    let outcome: DispatchOutcome = 'ok';
    try {
      // Read on every call: the state is in memory, and a degraded backend must not be hammered.
      const state = supervisor.state;
      if (!isSlotUsable(state)) throw new AdapterDegradedError(slot, supervisor.reason ?? state);
      const operation = (supervisor.adapter as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method];
      if (!operation) throw new Error(`adapter ${supervisor.identity.adapter} lacks the operation ${method}`);
      return await operation.apply(supervisor.adapter, args);
    } catch (err) {
      outcome = outcomeOf(err);
      if (err instanceof AdapterUnavailableError) supervisor.reportFailure(err);
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      metrics.adapterDispatch.inc({ ...labels, outcome });
      metrics.adapterDuration.observe(labels, (performance.now() - started) / 1000);
      span.setAttribute('agentbox.adapter.outcome', outcome);
      span.end();
    }
  });
}

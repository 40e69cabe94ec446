// Tracers used inside the app: request spans (via @fastify/otel) and adapter dispatch spans.
import { trace, type Tracer } from '@opentelemetry/api';
import { FastifyOtelInstrumentation } from '@fastify/otel';

/** The tracer adapter dispatch spans are created with; a no-op until telemetry registers a provider. */
export function adapterTracer(version: string): Tracer {
  return trace.getTracer('agentbox-adapters', version);
}

/**
 * The fastify instrumentation. Probe routes opt out with `config: { otel: false }` — they are
 * hit every few seconds by orchestrators and would drown real traffic.
 */
export function fastifyOtel(): FastifyOtelInstrumentation {
  // Registered as a plugin on our instance only. One span per request (plus its handler) is
  // enough; a span per lifecycle hook would triple the span count for no insight.
  return new FastifyOtelInstrumentation({ instrumentHooks: false });
}

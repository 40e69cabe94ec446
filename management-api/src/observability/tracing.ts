// Tracers used inside the app: request spans (via @fastify/otel, a fastify plugin) and adapter dispatch spans.
import { trace, type Tracer } from '@opentelemetry/api';
import fp from 'fastify-plugin';
import { isTracing } from './telemetry.js';

/** The tracer adapter dispatch spans are created with; a no-op until telemetry registers a provider. */
export function adapterTracer(version: string): Tracer {
  return trace.getTracer('agentbox-adapters', version);
}

/**
 * Instrument requests when a tracer provider is registered (loaded only then: without export
 * the spans would be no-ops anyway). Probe routes opt out with `config: { otel: false }` —
 * they are hit every few seconds by orchestrators and would drown real traffic. Registered first,
 * so requests the gate refuses still get their span.
 */
export const requestTracingPlugin = fp(
  async (app) => {
    if (!isTracing()) return;
    const { FastifyOtelInstrumentation } = await import('@fastify/otel');
    // One span per request (plus its handler) is enough; a span per lifecycle hook would triple
    // the span count for no insight.
    await app.register(new FastifyOtelInstrumentation({ instrumentHooks: false }).plugin());
  },
  { name: 'agentbox-request-tracing' },
);

// Process-wide tracing setup. The server starts it before loading the app, so everything after is traced.
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** Handle on the tracing pipeline. */
export interface Telemetry {
  /** True when spans are exported (an OTLP endpoint is configured). */
  exporting: boolean;
  /** Export every span ended so far. */
  flush(): Promise<void>;
  /** Flush and stop; the global tracer becomes a no-op again. */
  shutdown(): Promise<void>;
}

/** Identity of the traced service. */
export interface TelemetryOptions {
  /** OTLP/HTTP traces URL (`observability.otlp_endpoint`); empty disables export. */
  endpoint: string;
  serviceVersion: string;
  imageHash: string;
  boxName: string;
}

/**
 * Register the global tracer provider. Without an endpoint nothing is registered: spans stay
 * non-recording no-ops, which costs next to nothing on the request path.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (!options.endpoint) return { exporting: false, flush: async () => undefined, shutdown: async () => undefined };
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'agentbox-api',
      'service.version': options.serviceVersion,
      'service.instance.id': options.boxName,
      'agentbox.image_hash': options.imageHash,
    }),
    // A short export delay keeps traces timely for a low-traffic service.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: options.endpoint }), { scheduledDelayMillis: 1_000 })],
  });
  // Also installs the AsyncLocalStorage context manager, so adapter spans nest under request spans.
  provider.register();
  return {
    exporting: true,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
    },
  };
}

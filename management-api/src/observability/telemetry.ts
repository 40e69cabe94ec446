// Process-wide tracing setup. The server starts it before loading the app, so everything after is traced.
import { trace } from '@opentelemetry/api';

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

let active = false;

/** Whether a tracer provider is registered (the app instruments requests only then). */
export function isTracing(): boolean {
  return active;
}

/**
 * Register the global tracer provider. Without an endpoint nothing is registered (or even
 * loaded): spans stay non-recording no-ops, which costs next to nothing on the request path
 * and keeps the SDK out of the API's memory.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (!options.endpoint) return { exporting: false, flush: async () => undefined, shutdown: async () => undefined };
  const [{ OTLPTraceExporter }, { resourceFromAttributes }, { BatchSpanProcessor, NodeTracerProvider }, { scrubbingExporter }] = await Promise.all([
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
    import('./scrubbing-exporter.js'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'agentbox-api',
      'service.version': options.serviceVersion,
      'service.instance.id': options.boxName,
      'agentbox.image_hash': options.imageHash,
    }),
    // A short export delay keeps traces timely for a low-traffic service. Spans are scrubbed on
    // their way out: a request's url.path carries its query string, credentials included.
    spanProcessors: [new BatchSpanProcessor(scrubbingExporter(new OTLPTraceExporter({ url: options.endpoint })), { scheduledDelayMillis: 1_000 })],
  });
  // Also installs the AsyncLocalStorage context manager, so adapter spans nest under request spans.
  provider.register();
  active = true;
  return {
    exporting: true,
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      active = false;
    },
  };
}

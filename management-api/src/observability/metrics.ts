// The API's own Prometheus metrics (HTTP, adapter dispatch, readiness, build info, audit failures) in a registry of
// their own (never prom-client's global one); each area adds its metrics to it (api-metrics.ts composes them).
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { RequestStats } from './request-stats.js';

/** The metrics of the API itself, in the registry every area registers with. */
export interface CoreMetrics {
  registry: Registry;
  /** `agentbox_http_requests_total` and `agentbox_http_request_duration_seconds`. */
  http: RequestStats;
  adapterDispatch: Counter<'slot' | 'impl' | 'method' | 'outcome'>;
  adapterDuration: Histogram<'slot' | 'impl' | 'method'>;
  adapterHealth: Gauge<'slot'>;
  adapterInfo: Gauge<'slot' | 'impl' | 'adapter' | 'contract_version'>;
  ready: Gauge;
}

/** The audit trail's metric. */
export interface AuditMetrics {
  /** `agentbox_audit_events_failed_total`: audit events (agent, bead, egress policy) that could not be appended, by kind. */
  auditFailures: Counter<'kind'>;
}

/** Labels of `agentbox_build_info`. */
export interface BuildInfo {
  version: string;
  imageHash: string;
  manifestSha256: string;
}

// Request latencies of a local management API sit well under a millisecond for probes and in
// the milliseconds for adapter calls; the buckets resolve both.
const httpBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const adapterBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Create the registry with default process metrics, build info and the API's own metrics. */
export function createCoreMetrics(build: BuildInfo): CoreMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // These three are gauges named like counters, which promtool rejects; the per-type
  // nodejs_active_{handles,requests,resources} series carry the same numbers.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const registers = [registry];
  const buildInfo = new Gauge({
    name: 'agentbox_build_info',
    help: 'Constant 1, labelled with the API version, the image hash and the sha256 of the normalized manifest.',
    labelNames: ['version', 'image_hash', 'manifest_sha256'] as const,
    registers,
  });
  buildInfo.set({ version: build.version, image_hash: build.imageHash, manifest_sha256: build.manifestSha256 }, 1);
  return {
    registry,
    http: new RequestStats(
      registry,
      { counter: 'agentbox_http_requests_total', histogram: 'agentbox_http_request_duration_seconds' },
      {
        counter: 'HTTP requests answered by the management API, by method, route template and status code.',
        histogram: 'Time to answer an HTTP request, by method and route template.',
      },
      httpBuckets,
    ),
    adapterDispatch: new Counter({
      name: 'agentbox_adapter_dispatch_total',
      help: 'Adapter operations dispatched, by slot, implementation, method and outcome (ok, rejected, error, off, degraded, unavailable, timeout).',
      labelNames: ['slot', 'impl', 'method', 'outcome'] as const,
      registers,
    }),
    adapterDuration: new Histogram({
      name: 'agentbox_adapter_duration_seconds',
      help: 'Duration of adapter operations, by slot, implementation and method.',
      labelNames: ['slot', 'impl', 'method'] as const,
      buckets: adapterBuckets,
      registers,
    }),
    adapterHealth: new Gauge({
      name: 'agentbox_adapter_health',
      help: 'Adapter slot health: 1 healthy or off (as configured), 0 degraded or still connecting.',
      labelNames: ['slot'] as const,
      registers,
    }),
    adapterInfo: new Gauge({
      name: 'agentbox_adapter_info',
      help: 'Constant 1 per slot, labelled with the implementation, adapter module and contract version.',
      labelNames: ['slot', 'impl', 'adapter', 'contract_version'] as const,
      registers,
    }),
    ready: new Gauge({
      name: 'agentbox_ready',
      help: 'Whether /ready answers 200 (1) or 503 (0).',
      registers,
    }),
  };
}

/** The audit trail's metric, registered with `registry`. */
export function createAuditMetrics(registry: Registry): AuditMetrics {
  return {
    auditFailures: new Counter({
      name: 'agentbox_audit_events_failed_total',
      help: 'Audit events (agent spawn, terminate and exit, bead transitions, egress allowlist changes) the events slot did not take, by kind; the action itself went ahead.',
      labelNames: ['kind'] as const,
      registers: [registry],
    }),
  };
}

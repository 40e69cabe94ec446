// Metrics of publishing agent events to relays, registered with the API's other metrics.
import { Counter, Gauge, type Registry } from 'prom-client';

/** The publishing metrics, labelled by relay URL. */
export interface MeshMetrics {
  /** `agentbox_mesh_events_published_total`: events a relay accepted (OK true). */
  published: Counter<'relay'>;
  /** `agentbox_mesh_events_dropped_total`: events given up, by reason (`queue-full`, `rejected`). */
  dropped: Counter<'relay' | 'reason'>;
  /** `agentbox_mesh_queue_length`: events waiting per relay. */
  queueLength: Gauge<'relay'>;
  /** `agentbox_mesh_relay_up`: 1 while connected to the relay, else 0. */
  relayUp: Gauge<'relay'>;
}

/** Create the publishing metrics in `registry`. */
export function createMeshMetrics(registry: Registry): MeshMetrics {
  const registers = [registry];
  return {
    published: new Counter({
      name: 'agentbox_mesh_events_published_total',
      help: 'Signed agent events a relay accepted, by relay.',
      labelNames: ['relay'] as const,
      registers,
    }),
    dropped: new Counter({
      name: 'agentbox_mesh_events_dropped_total',
      help: 'Signed agent events given up, by relay and reason: queue-full (the oldest waiting event made room for a new one), rejected (the relay refused it or never answered, every try).',
      labelNames: ['relay', 'reason'] as const,
      registers,
    }),
    queueLength: new Gauge({
      name: 'agentbox_mesh_queue_length',
      help: 'Signed agent events waiting to be published, by relay.',
      labelNames: ['relay'] as const,
      registers,
    }),
    relayUp: new Gauge({
      name: 'agentbox_mesh_relay_up',
      help: 'Whether the box is connected to the relay (1) or not (0).',
      labelNames: ['relay'] as const,
      registers,
    }),
  };
}

// The egress proxy's decisions as a Prometheus counter, registered with the API's other metrics.
import { Counter, type Registry } from 'prom-client';

/** Egress metrics. */
export interface EgressMetrics {
  /** `agentbox_egress_decisions_total`, by decision (allowed, denied) and reason (bounded: never a host or an agent). */
  decisions: Counter<'decision' | 'reason'>;
}

/** Every reason the proxy gives; anything else is counted as `other`, so the label stays bounded. */
export const EGRESS_REASONS: ReadonlySet<string> = new Set([
  'exact',
  'suffix',
  'address',
  'no-credential',
  'bad-credential',
  'domain-not-listed',
  'port-not-listed',
  'unresolvable',
  'unspecified',
  'loopback',
  'private',
  'cgnat',
  'link-local',
  'metadata',
  'multicast',
  'reserved',
  'too-many-connections',
  'policy-denied',
]);

/** Create the egress metrics in `registry`. */
export function createEgressMetrics(registry: Registry): EgressMetrics {
  return {
    decisions: new Counter({
      name: 'agentbox_egress_decisions_total',
      help: 'Egress proxy decisions, by decision (allowed, denied) and reason (how the host matched, or why it was refused: no-credential, bad-credential, domain-not-listed, port-not-listed, unresolvable, loopback, private, link-local, metadata, ...).',
      labelNames: ['decision', 'reason'] as const,
      registers: [registry],
    }),
  };
}

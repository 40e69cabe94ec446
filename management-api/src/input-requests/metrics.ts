// The input requests as Prometheus metrics: open now by reason, and how each ended by reason and outcome.
import { Counter, Gauge, type Registry } from 'prom-client';

/** Input request metrics. */
export interface InputRequestMetrics {
  /** `agentbox_input_requests_open`, by reason. */
  open: Gauge<'reason'>;
  /** `agentbox_input_requests_total`, by reason and outcome. */
  requests: Counter<'reason' | 'outcome'>;
}

/** Every outcome counted (bounded): raised, then one of answered, withdrawn, ended; refused when a cap stopped it. */
export const INPUT_OUTCOMES = ['raised', 'answered', 'withdrawn', 'ended', 'refused'] as const;

/** Create the input request metrics in `registry`. */
export function createInputRequestMetrics(registry: Registry): InputRequestMetrics {
  return {
    open: new Gauge({
      name: 'agentbox_input_requests_open',
      help: 'Agents waiting for a person now (GET /v1/input-requests), by reason: prompt (seen on a quiet terminal) or explicit (asked through the API).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    requests: new Counter({
      name: 'agentbox_input_requests_total',
      help: 'Input requests by reason (prompt, explicit) and outcome: raised; answered, withdrawn (the agent moved on, someone typed, the agent took it back) or ended (the agent ended); refused (a cap on open requests).',
      labelNames: ['reason', 'outcome'] as const,
      registers: [registry],
    }),
  };
}

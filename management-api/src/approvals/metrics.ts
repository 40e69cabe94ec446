// The approvals queue as Prometheus metrics: requests pending, and decisions by outcome.
import { Counter, Gauge, type Registry } from 'prom-client';

/** Approval metrics. */
export interface ApprovalMetrics {
  /** `agentbox_approvals_pending`. */
  pending: Gauge;
  /** `agentbox_approval_decisions_total`, by outcome. */
  decisions: Counter<'outcome'>;
}

/** Every outcome counted (bounded). */
export const APPROVAL_OUTCOMES = ['approved', 'denied', 'timeout', 'refused', 'queue-full', 'granted-by-scope', 'closed'] as const;

/** Create the approval metrics in `registry`. */
export function createApprovalMetrics(registry: Registry): ApprovalMetrics {
  return {
    pending: new Gauge({ name: 'agentbox_approvals_pending', help: 'Approval requests waiting for a decision (GET /v1/approvals).', registers: [registry] }),
    decisions: new Counter({
      name: 'agentbox_approval_decisions_total',
      help: 'How asks of supervised agents ended, by outcome: approved, denied, timeout, refused (a signed decision refused: wrong signer, replay, changed request), queue-full, granted-by-scope (settled by an earlier agent or until decision), closed (the API stopped).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
  };
}

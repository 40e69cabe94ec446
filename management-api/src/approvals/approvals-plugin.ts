// The approvals queue as a fastify plugin: `app.approvals`, the approver every enforcement point hands a supervised ask to; pending requests are denied when the app closes.
import fp from 'fastify-plugin';
import type { ApiMetrics } from '../api-metrics.js';
import { pubkeyToHex } from '../grammar/pubkey.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import { ApprovalQueue } from './queue.js';
import { UsedEvents } from './signed-decision.js';

/** The approvals as routes and the egress controller see them. */
export interface Approvals {
  queue: ApprovalQueue;
  /** Hex keys whose signed decisions count: mesh.operator_pubkeys. */
  approvers: ReadonlySet<string>;
  /** Signed decision ids already used (replays are refused). */
  used: UsedEvents;
}

declare module 'fastify' {
  interface FastifyInstance {
    approvals: Approvals;
  }
}

/** Options of {@link approvalsPlugin}. */
export interface ApprovalsPluginOptions {
  manifest: NormalizedManifest;
  metrics: Pick<ApiMetrics, 'approvals'>;
}

/**
 * After the adapters (every request and decision is appended through the audit trail) and the
 * agent events (a new request is published to the relays). The egress
 * controller, started earlier, reaches the queue through `app.approvals` once it exists; until
 * then a proxy's ask is denied as having no approver.
 */
export const approvalsPlugin = fp<ApprovalsPluginOptions>(
  async (app, options) => {
    const { policy, mesh } = options.manifest;
    const queue = new ApprovalQueue({
      timeoutMs: policy.approval_timeout_sec * 1000,
      maxPending: policy.max_pending_approvals,
      metrics: options.metrics.approvals,
      record: (kind, data) => app.audit.record(kind, 'approvals', data),
      // Published with the agent events, where sovereign_mesh publishes them (a no-op otherwise).
      onRequest: (request, subject) => app.agentEvents.approvalRequested(request, subject),
    });
    const approvers = new Set(mesh.operator_pubkeys.map((k) => pubkeyToHex(k)).filter((k): k is string => k !== undefined));
    app.decorate('approvals', { queue, approvers, used: new UsedEvents() });
    // Before the server stops accepting: a held request answers (denied) instead of holding the close.
    app.addHook('preClose', async () => queue.close());
  },
  { name: 'agentbox-approvals', dependencies: ['agentbox-adapters', 'agentbox-agent-events'] },
);

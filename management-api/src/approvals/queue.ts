// The approvals queue: holds a supervised agent's ask as a request until an operator decides, a timeout denies it, or the API closes; bounded in all and per agent.
import { randomBytes } from 'node:crypto';
import type { Approver, HoldContext } from '../policy/settle.js';
import type { PolicyAction, PolicyDecision } from '../policy/policy-types.js';
import { ApiError } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { actionSubject } from '../policy/audit-record.js';
import { argumentsOf, requestDigest, type ApprovalRequest, type Decider, type Scope } from './approval-request.js';
import { grantKey, Grants, scopeText } from './scope.js';
import type { ApprovalMetrics } from './metrics.js';

/** The audit events of the queue. */
export const APPROVAL_EVENT_KINDS = { requested: AUDIT_KINDS.approvalRequested, decided: AUDIT_KINDS.approvalDecided } as const;

/** How the queue is built. */
export interface ApprovalQueueOptions {
  timeoutMs: number;
  /** Requests pending at once, in all; one agent (by name, operators together) may hold a quarter (at least 1). */
  maxPending: number;
  metrics: ApprovalMetrics;
  /** Appends an audit event (never rejects). */
  record: (kind: (typeof APPROVAL_EVENT_KINDS)[keyof typeof APPROVAL_EVENT_KINDS], data: Record<string, unknown>) => Promise<unknown>;
  /** Told of a new request with its arguments as the log keeps them (censored): relays publish it; never throws. */
  onRequest?: (request: ApprovalRequest, subject: Record<string, unknown>) => void;
  now?: () => number;
}

/** What a change to the queue tells a listener (the SSE stream, the dashboard). */
export interface QueueChange {
  type: 'requested' | 'decided';
  request: ApprovalRequest;
}

/** One decision as a route hands it to the queue (already checked: signature, signer, digest). */
export interface DecisionInput {
  approve: boolean;
  reason: string;
  scope: Scope;
  by: Decider;
}

interface Held {
  request: ApprovalRequest;
  settle: (answer: { approved: boolean; reason: string }) => void;
  timer: NodeJS.Timeout;
}

/** Decided requests kept for GET /v1/approvals/{id} (the oldest go first). */
const KEEP_DECIDED = 200;

export class ApprovalQueue implements Approver {
  readonly #pending = new Map<string, Held>();
  readonly #decided = new Map<string, ApprovalRequest>();
  readonly #grants = new Grants();
  readonly #listeners = new Set<(change: QueueChange) => void>();
  readonly #now: () => number;
  #closed = false;

  constructor(private readonly options: ApprovalQueueOptions) {
    this.#now = options.now ?? Date.now;
  }

  /** The bound on one agent's pending requests. */
  get perAgent(): number {
    return Math.max(1, Math.floor(this.options.maxPending / 4));
  }

  async hold(decision: PolicyDecision, action: PolicyAction, context?: HoldContext): Promise<{ approved: boolean; reason: string }> {
    const now = this.#now();
    const agent = 'agent' in action && action.agent !== undefined ? action.agent : null;
    const base = { action: action.kind, agent, rule: decision.rule, policy: decision.version };
    if (this.#closed) return this.#count('closed', { approved: false, reason: 'the API is stopping; no approver reachable' });
    const grant = this.#grants.find(grantKey(base), now);
    if (grant) {
      return this.#count('granted-by-scope', {
        approved: grant.approved,
        reason: `${grant.approved ? 'approved' : 'denied'} by ${grant.by} (scope ${grant.scope} of request ${grant.request})`,
      });
    }
    if (this.#pending.size >= this.options.maxPending)
      return this.#count('queue-full', {
        approved: false,
        reason: `the approval queue is full (${this.#pending.size} requests pending; policy.max_pending_approvals)`,
      });
    const mine = [...this.#pending.values()].filter((h) => h.request.agent === agent).length;
    if (mine >= this.perAgent)
      return this.#count('queue-full', {
        approved: false,
        reason: `${agent === null ? 'operators have' : `agent ${agent} has`} ${mine} approval requests pending already (at most ${this.perAgent})`,
      });
    const request: ApprovalRequest = {
      id: `apr_${randomBytes(9).toString('hex')}`,
      digest: requestDigest(action, decision),
      ...base,
      agentId: context?.agentId ?? null,
      arguments: argumentsOf(action),
      reason: decision.reason,
      created: new Date(now).toISOString(),
      expires: new Date(now + this.options.timeoutMs).toISOString(),
      state: 'pending',
    };
    const answer = new Promise<{ approved: boolean; reason: string }>((resolve) => {
      const timer = setTimeout(
        () =>
          this.#end(request.id, {
            outcome: 'timeout',
            reason: `no decision within ${Math.round(this.options.timeoutMs / 1000)} s (policy.approval_timeout_sec)`,
          }),
        this.options.timeoutMs,
      );
      timer.unref();
      this.#pending.set(request.id, { request, settle: resolve, timer });
    });
    this.options.metrics.pending.set(this.#pending.size);
    // The log gets the action as policy.decision events carry it: bounded, secret-looking values censored.
    const subject = actionSubject(action);
    await this.options.record(APPROVAL_EVENT_KINDS.requested, { ...requestedData(request), arguments: subject });
    this.#emit({ type: 'requested', request });
    this.options.onRequest?.(request, subject);
    return answer;
  }

  /** Every pending request, oldest first. */
  list(): ApprovalRequest[] {
    return [...this.#pending.values()].map((h) => h.request);
  }

  /** A pending or recently decided request; 404 ABX_ERR_APPROVAL_NOT_FOUND otherwise. */
  get(id: string): ApprovalRequest {
    const request = this.#pending.get(id)?.request ?? this.#decided.get(id);
    if (!request) throw new ApiError('ABX_ERR_APPROVAL_NOT_FOUND', `no approval request ${id} (decided ones are kept for the last ${KEEP_DECIDED})`);
    return request;
  }

  /** The pending request `id`; 409 ABX_ERR_APPROVAL_DECIDED once it is decided, 404 when unknown. */
  pending(id: string): ApprovalRequest {
    const held = this.#pending.get(id);
    if (held) return held.request;
    const done = this.#decided.get(id);
    if (done) throw new ApiError('ABX_ERR_APPROVAL_DECIDED', `approval request ${id} is ${done.state} already (${done.decision?.reason ?? ''})`.trim());
    return this.get(id);
  }

  /** Settle pending request `id` with a checked decision; its scope is remembered when wider than once. */
  decide(id: string, input: DecisionInput): ApprovalRequest {
    const request = this.pending(id);
    const scope = scopeText(input.scope);
    if (input.scope.kind !== 'once') {
      const who = input.by.pubkey ?? String(input.by.actor['kind']);
      this.#grants.remember(grantKey(request), {
        approved: input.approve,
        until: input.scope.kind === 'until' ? input.scope.until : Number.POSITIVE_INFINITY,
        request: id,
        scope,
        by: who,
      });
    }
    return this.#end(id, { outcome: input.approve ? 'approved' : 'denied', reason: input.reason, scope, by: input.by })!;
  }

  /** Record a decision refused before it reached the queue (a forged, replayed or stale signature): the request stays pending. */
  async refused(id: string, by: Decider, why: string): Promise<void> {
    this.options.metrics.decisions.inc({ outcome: 'refused' });
    await this.options.record(APPROVAL_EVENT_KINDS.decided, {
      request: id,
      outcome: 'refused',
      reason: why,
      actor: by.actor,
      ...(by.pubkey ? { approver: by.pubkey } : {}),
      ...(by.signature ? { signature: by.signature } : {}),
    });
  }

  /** Be told of every new and every decided request; returns the unsubscribe. */
  subscribe(listener: (change: QueueChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Deny every pending request (the API is stopping) and refuse new ones. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#pending.keys()]) this.#end(id, { outcome: 'denied', reason: 'the API is stopping; no approver reachable' }, 'closed');
  }

  #end(
    id: string,
    decision: { outcome: 'approved' | 'denied' | 'timeout'; reason: string; scope?: string; by?: Decider },
    counted?: 'closed',
  ): ApprovalRequest | undefined {
    const held = this.#pending.get(id);
    if (!held) return undefined;
    this.#pending.delete(id);
    clearTimeout(held.timer);
    const request: ApprovalRequest = { ...held.request, state: decision.outcome, decision: { ...decision, at: new Date(this.#now()).toISOString() } };
    this.#decided.set(id, request);
    if (this.#decided.size > KEEP_DECIDED) this.#decided.delete(this.#decided.keys().next().value!);
    this.options.metrics.pending.set(this.#pending.size);
    this.options.metrics.decisions.inc({ outcome: counted ?? decision.outcome });
    void this.options.record(APPROVAL_EVENT_KINDS.decided, decidedData(request));
    const approved = decision.outcome === 'approved';
    const who = decision.by ? ` by ${decision.by.pubkey ?? String(decision.by.actor['kind'])}${decision.by.signed ? ' (signed)' : ''}` : '';
    held.settle({
      approved,
      reason: `${decision.outcome === 'timeout' ? 'timed out' : decision.outcome}${who} (request ${id})${decision.reason ? `: ${decision.reason}` : ''}`,
    });
    this.#emit({ type: 'decided', request });
    return request;
  }

  #count(outcome: 'closed' | 'granted-by-scope' | 'queue-full', answer: { approved: boolean; reason: string }): { approved: boolean; reason: string } {
    this.options.metrics.decisions.inc({ outcome });
    return answer;
  }

  #emit(change: QueueChange): void {
    for (const l of this.#listeners) l(change);
  }
}

function requestedData(r: ApprovalRequest): Record<string, unknown> {
  return {
    request: r.id,
    digest: r.digest,
    action: r.action,
    agent: r.agentId,
    name: r.agent,
    arguments: r.arguments,
    rule: r.rule,
    policy: r.policy,
    expires: r.expires,
  };
}

function decidedData(r: ApprovalRequest): Record<string, unknown> {
  const d = r.decision!;
  return {
    request: r.id,
    digest: r.digest,
    action: r.action,
    agent: r.agentId,
    name: r.agent,
    rule: r.rule,
    policy: r.policy,
    outcome: d.outcome,
    reason: d.reason,
    ...(d.scope ? { scope: d.scope } : {}),
    ...(d.by
      ? { actor: d.by.actor, signed: d.by.signed, ...(d.by.pubkey ? { approver: d.by.pubkey } : {}), ...(d.by.signature ? { signature: d.by.signature } : {}) }
      : { actor: { kind: 'box', reason: d.outcome } }),
  };
}

// Enforcing a decision where the box acts (a spawn, a provider call, a change of the egress allowlist): decide, settle an ask, record the decision, refuse with ABX_ERR_POLICY_DENIED.
import { ApiError } from '../errors.js';
import type { CompiledPolicy } from './compile.js';
import { evaluate } from './evaluate.js';
import { policyEventData } from './audit-record.js';
import { settle, type Approver, type Outcome } from './settle.js';
import type { Autonomy, PolicyAction } from './policy-types.js';

/** How one enforcement point records and settles. */
export interface GateOptions {
  /** The acting agent's id, or null when an operator acts. */
  agent: string | null;
  /** The agent's autonomy (the policy's default when absent). */
  autonomy?: Autonomy;
  /** Appends the `policy.decision` event (the caller's audit trail; it never rejects). */
  record: (data: Record<string, unknown>) => Promise<unknown>;
  /** Whether an allowed action is recorded too (where actions are few: spawns, allowlist changes). */
  recordAllowed: boolean;
  approver?: Approver;
}

/** The message of a refusal: the reason, and the policy version it was decided under. */
export function refusalMessage(outcome: Outcome): string {
  return `refused by [policy]: ${outcome.reason} (policy ${outcome.decision.version.slice(0, 19)}…; see docs/user/policy.md)`;
}

/**
 * Decide `action` under `policy` and settle an ask. A refusal is recorded, then thrown as
 * ABX_ERR_POLICY_DENIED naming the rule; an allowed action is recorded when asked to and
 * returned, so the caller can carry its decision on.
 */
export async function enforce(policy: CompiledPolicy, action: PolicyAction, options: GateOptions): Promise<Outcome> {
  // No [policy] (no rule, default allow): the box behaves as before it had one, with no extra events.
  if (isOpen(policy))
    return {
      allowed: true,
      decision: policy.defaults[action.kind],
      autonomy: options.autonomy ?? policy.autonomy,
      reason: policy.defaults[action.kind].reason,
    };
  const outcome = await settle(evaluate(policy, action), action, options.autonomy ?? policy.autonomy, options.approver, { agentId: options.agent });
  if (!outcome.allowed || options.recordAllowed) await options.record(policyEventData(action, outcome, options.agent));
  if (!outcome.allowed) throw new ApiError('ABX_ERR_POLICY_DENIED', refusalMessage(outcome));
  return outcome;
}

/** A policy without rules whose default allows: what an absent [policy] is. */
export function isOpen(policy: CompiledPolicy): boolean {
  return policy.rules.length === 0 && policy.default === 'allow';
}

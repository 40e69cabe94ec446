// From a decision to an outcome: allow and deny stand; an ask is denied at once for an autonomous agent, and for a supervised one goes to an approver (the API's approvals queue), which holds it until decided.
import type { Autonomy, PolicyAction, PolicyDecision } from './policy-types.js';

/** What happens to the action, and the one line the agent (and the audit log) is told. */
export interface Outcome {
  allowed: boolean;
  decision: PolicyDecision;
  autonomy: Autonomy;
  /** Why, naming the rule: `rule 3 ("push") asks for approval; this agent is autonomous`. */
  reason: string;
}

/**
 * THE APPROVAL SEAM. A supervised agent's `ask` is handed to `hold`, which keeps the action
 * waiting (a spawn queued, a CONNECT or request held open) until a human approves or denies it,
 * or a timeout denies it. The API's approvals queue (approvals/queue.ts) is one; where none is
 * wired, {@link noApprover} answers at once that no approver is reachable, which denies (a missing
 * approver never allows).
 */
export interface Approver {
  hold(decision: PolicyDecision, action: PolicyAction, context?: HoldContext): Promise<{ approved: boolean; reason: string }>;
}

/** What the enforcement point knows besides the action: the acting agent's id (none for a spawn, which has no id yet, or an operator). */
export interface HoldContext {
  agentId?: string | null;
}

/** Where no approvals queue is wired: none is reachable. */
export const noApprover: Approver = {
  hold: async () => ({ approved: false, reason: 'no approver reachable' }),
};

/** The rule as messages name it: `rule 3 ("id")`, or `policy.default`. */
export function ruleName(decision: PolicyDecision): string {
  if (decision.rule === null) return 'policy.default';
  return `rule ${decision.rule.index}${decision.rule.id !== undefined ? ` (${JSON.stringify(decision.rule.id)})` : ''}`;
}

/** Settle `decision` for an agent of `autonomy` (an ask goes to `approver` only when supervised). */
export async function settle(
  decision: PolicyDecision,
  action: PolicyAction,
  autonomy: Autonomy,
  approver: Approver = noApprover,
  context?: HoldContext,
): Promise<Outcome> {
  const named = ruleName(decision);
  if (decision.decision === 'allow') return { allowed: true, decision, autonomy, reason: `${named} allows (${decision.reason})` };
  if (decision.decision === 'deny') return { allowed: false, decision, autonomy, reason: `${named} denies (${decision.reason})` };
  if (autonomy === 'autonomous') return { allowed: false, decision, autonomy, reason: `${named} asks for approval; this agent is autonomous` };
  const answer = await approver.hold(decision, action, context);
  return { allowed: answer.approved, decision, autonomy, reason: `${named} asks for approval; ${answer.reason}` };
}

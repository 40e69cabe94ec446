// The data of a `policy.decision` audit event: the rule, the action, the agent, the decision, the outcome and why, and the policy version.
import type { Outcome } from './settle.js';
import type { PolicyAction } from './policy-types.js';
import { CENSOR, scrubSecrets } from '../secrets/redact.js';
import { secretKind } from '../secrets/secret-names.js';

/** The event kind every policy decision is appended as. */
export const POLICY_EVENT_KIND = 'policy.decision';

/**
 * The fields of `action` worth keeping: bounded (long values are cut), and without what looks like
 * a secret. A refused spawn is recorded before the orchestrator's own checks (which refuse the
 * box key in a command line), so a key there must not reach the log through its refusal.
 */
export function actionSubject(action: PolicyAction): Record<string, unknown> {
  const cut = (s: string): string => (secretKind(s) !== undefined ? CENSOR : scrubSecrets(s.length > 512 ? `${s.slice(0, 512)}…` : s));
  switch (action.kind) {
    case 'spawn':
      return {
        name: action.agent,
        command: cut(action.command),
        args: action.args.slice(0, 32).map(cut),
        cwd: action.cwd ?? '.',
        ...(action.profile !== undefined ? { profile: action.profile } : {}),
      };
    case 'egress':
      return {
        host: cut(action.host),
        port: action.port,
        ...(action.method !== undefined ? { method: action.method } : {}),
        ...(action.path !== undefined ? { path: cut(action.path) } : {}),
      };
    case 'provider':
      return { provider: action.provider };
    case 'egress-change':
      return { ...(action.host !== undefined ? { host: action.host } : {}), ...(action.port !== undefined ? { port: action.port } : {}) };
  }
}

/** The event data for `outcome` of `action` by `agent` (an agent id, or null when no agent acted). */
export function policyEventData(action: PolicyAction, outcome: Outcome, agent: string | null): Record<string, unknown> {
  const { decision } = outcome;
  return {
    action: action.kind,
    subject: actionSubject(action),
    agent,
    rule: decision.rule,
    decision: decision.decision,
    outcome: outcome.allowed ? 'allowed' : 'denied',
    autonomy: outcome.autonomy,
    reason: outcome.reason,
    policy: decision.version,
  };
}

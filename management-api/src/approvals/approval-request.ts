// One approval request: what is held, the digest that binds a decision to exactly that action, and how it stands.
import { canonicalSha256 } from '../manifest/canonical-json.js';
import type { DecidingRule, PolicyAction, PolicyDecision } from '../policy/policy-types.js';

/** How far a decision reaches (scope.ts says what each covers). */
export type Scope = { kind: 'once' } | { kind: 'agent' } | { kind: 'until'; until: number };

/** Where a request stands. `pending` until a decision, a timeout or the API's close settles it. */
export type ApprovalState = 'pending' | 'approved' | 'denied' | 'timeout';

/** Who decided, as the audit log records it; `signature` only for a decision signed by an operator key. */
export interface Decider {
  actor: Record<string, unknown>;
  /** `signed` (a Nostr event of an operator key in mesh.operator_pubkeys) or `unsigned` (the bearer key, a NIP-98 request, a dashboard session). */
  signed: boolean;
  pubkey?: string;
  signature?: { id: string; sig: string };
}

/** A request as the API lists it. */
export interface ApprovalRequest {
  id: string;
  /** `sha256:` of the canonical JSON of {action, agent, arguments, policy}. */
  digest: string;
  action: PolicyAction['kind'];
  /** The agent's name (what rules match), or null for an operator's action. */
  agent: string | null;
  /** The agent's id, when the action comes from a running agent. */
  agentId: string | null;
  /** The action's fields besides its kind and agent (a spawn's command, args and cwd; egress host, port, method, path; …). */
  arguments: Record<string, unknown>;
  rule: DecidingRule | null;
  /** Why the rule asks (`matched host=github.com`). */
  reason: string;
  policy: string;
  created: string;
  expires: string;
  state: ApprovalState;
  decision?: { outcome: 'approved' | 'denied' | 'timeout'; reason: string; scope?: string; by?: Decider; at: string };
}

/** The action's fields besides `kind` and `agent`, with absent optional fields left out. */
export function argumentsOf(action: PolicyAction): Record<string, unknown> {
  const { kind: _kind, ...rest } = action as PolicyAction & { agent?: string };
  const { agent: _agent, ...args } = rest as Record<string, unknown>;
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined));
}

/** The digest a decision is bound to: what will happen (the action, the agent, its arguments) under which policy. */
export function requestDigest(action: PolicyAction, decision: Pick<PolicyDecision, 'version'>): string {
  const agent = 'agent' in action && action.agent !== undefined ? action.agent : null;
  return `sha256:${canonicalSha256({ action: action.kind, agent, arguments: argumentsOf(action), policy: decision.version })}`;
}

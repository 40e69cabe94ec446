// The shapes policy decisions are made over: the four kinds of action, a rule's verdict, an agent's autonomy and the decision that names its rule.
import type { Manifest, PolicyRule as ManifestPolicyRule } from '../manifest/generated/manifest-types.js';
import type { DeepReadonly } from '../manifest/deep-freeze.js';

/** The `[policy]` table as the manifest normalizes it (frozen once loaded). */
export type PolicySection = DeepReadonly<Manifest['policy']>;
/** One `[[policy.rules]]` entry. */
export type PolicyRule = DeepReadonly<ManifestPolicyRule>;

/** What a rule is about. */
export type ActionKind = PolicyRule['action'];
/** What a rule (or the default) says. */
export type Verdict = PolicyRule['decision'];
/** How an agent meets an `ask`. */
export type Autonomy = PolicySection['autonomy'];

/** Every action kind, in the order the docs and the CLI list them. */
export const ACTION_KINDS: readonly ActionKind[] = ['spawn', 'egress', 'provider', 'egress-change'];
/** Both autonomies. */
export const AUTONOMIES: readonly Autonomy[] = ['autonomous', 'supervised'];

/** An agent started through POST /v1/agents: its name, the command as written, its arguments and working directory (relative to the workspace). */
export interface SpawnAction {
  kind: 'spawn';
  agent: string;
  command: string;
  args: readonly string[];
  cwd?: string;
  /** The manifest profile it is started from (agents.profiles.<name>), when one. */
  profile?: string;
}

/** A connection through the egress proxy; `method` and `path` only for plain HTTP (a CONNECT shows host and port alone). */
export interface EgressAction {
  kind: 'egress';
  /** The agent's name, when the proxy knows it. */
  agent?: string;
  host: string;
  port: number;
  method?: string;
  path?: string;
}

/** A call through the provider broker, by an agent (its name) or by an operator (no agent). */
export interface ProviderAction {
  kind: 'provider';
  provider: string;
  agent?: string;
}

/** One addition to the egress allowlist at run time (PUT /v1/sandbox/egress): an entry, a port, or neither for a change that only removes. */
export interface EgressChangeAction {
  kind: 'egress-change';
  host?: string;
  port?: number;
}

/** Any action the policy decides. */
export type PolicyAction = SpawnAction | EgressAction | ProviderAction | EgressChangeAction;

/** The rule that decided: its position in `policy.rules` (from 0) and its `id`, when it has one. */
export interface DecidingRule {
  index: number;
  id?: string;
}

/** One decision: the verdict, the rule that gave it (null: the default), why, and the policy version it was made under. */
export interface PolicyDecision {
  action: ActionKind;
  decision: Verdict;
  rule: DecidingRule | null;
  /** The fields of the deciding rule that matched (`host=*.example.com`), empty for the default or a rule without fields. */
  matched: readonly string[];
  /** Why: `matched host=*.example.com, port=443`, or `no rule matches` (the default decided). */
  reason: string;
  /** `sha256:<hex>` of the compiled policy. */
  version: string;
}

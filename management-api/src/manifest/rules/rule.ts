// The shape of a semantic rule: a pure function of the normalized manifest and an injected context.
import type { Manifest } from '../generated/manifest-types.js';
import type { Severity } from '../diagnostics.js';

/** CPU architecture the box is built for. */
export type TargetArch = 'x86_64' | 'aarch64';

/** What the manifest is rendered for: docker-compose, Kubernetes objects, or agent-sandbox resources. */
export type DeployTarget = 'compose' | 'kubernetes' | 'agent-sandbox';

/** Every deploy target, in the order commands list them (`--target`). */
export const DEPLOY_TARGETS: readonly DeployTarget[] = ['compose', 'kubernetes', 'agent-sandbox'];

/**
 * Everything a rule may know besides the manifest. Rules never read `process.env` or the
 * host's architecture: the caller injects both, so a rule gives the same answer everywhere.
 */
export interface RuleContext {
  /** Architecture of the image being built (not of the machine running the validator). */
  targetArch: TargetArch;
  /** The environment the box will run with (used only to check that named variables exist). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Parts this build provides beyond those schema/box-facts.json marks available, by name
   * (`feature:<name>`, `program:<name>`): a build that ships one of them says so here. Default: none.
   */
  provides?: readonly string[];
  /**
   * Where the box will run (`agentbox render --target`): rules about what has no Kubernetes form
   * apply to `kubernetes` and `agent-sandbox` only. Default: compose.
   */
  target?: DeployTarget;
}

/** One violation found by a rule. */
export interface RuleFinding {
  /** JSON pointer of the offending key in the normalized manifest. */
  pointer: string;
  message: string;
  /** How to fix it, concretely. */
  hint: string;
}

/** A semantic rule of the catalogue. Ids are never reused; a retired rule keeps its entry. */
export interface Rule {
  /** `E###` (error) or `W###` (warning), stable forever. */
  id: string;
  /** Kebab-case name, unique across the catalogue. */
  alias: string;
  severity: Severity;
  /** One line: what the rule requires. */
  summary: string;
  /** Findings for this manifest; empty when the rule holds. Must not throw or mutate. */
  check(manifest: Manifest, context: RuleContext): RuleFinding[];
}

/** A rule id that once existed and must never be reused. */
export interface RetiredRule {
  id: string;
  alias: string;
  /** Why it was retired and what covers its check now (printed by `agentbox config explain`). */
  retired: string;
}

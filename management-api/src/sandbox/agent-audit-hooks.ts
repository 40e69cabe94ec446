// The hooks an orchestrator calls as an agent starts, is asked to end and ends, for the audit trail (types only, so adapters can name them without importing the recorder).
import type { AgentLimits, AgentUsage } from './limits/budgets.js';

/** How an agent is confined: the launcher alone (Landlock, seccomp, a keeper), inside bubblewrap as well, or not at all (sandbox.enabled = false). */
export type SandboxMode = 'launcher' | 'bubblewrap' | 'off';

/** What is known of an agent the moment it starts. Environment values are never part of it: names only. */
export interface AgentStartFacts {
  id: string;
  name: string;
  command: string;
  args: readonly string[];
  /** Its working directory, relative to the workspace. */
  cwd: string;
  /** Names of the extra variables the request set (their values may be private). */
  envNames: readonly string[];
  limits: AgentLimits;
  sandbox: SandboxMode;
  pid: number;
  startedAt: string;
}

/** What is known of an agent once it has exited. */
export interface AgentEndFacts {
  id: string;
  name: string;
  /** exited, failed, terminated or crash-loop. */
  state: string;
  exitCode?: number;
  signal?: string;
  /** `limit:memory`, `limit:cpu`, `limit:processes`, `limit:inotify`, `limit:disk`, `limit:entries` when a budget ended it, else `terminated` (asked), `exited` (code 0) or `failed`. */
  reason: string;
  startedAt: string;
  endedAt: string;
  usage?: AgentUsage;
  /** Highest PSS of its tree seen by the sampler. */
  peakPssBytes?: number;
  limits?: AgentLimits;
}

/** Who ends an agent when the box does it on its own: a budget, or the API closing. */
export interface BoxTermination {
  kind: 'box';
  reason: string;
}

/**
 * Called by the local orchestrator, synchronously, in the order things happen: `started` before
 * the agent's exit can be seen, `terminating` before the first signal, `ended` once it exited.
 * The hooks never throw; whoever records them deals with its own failures.
 */
export interface AgentAuditHooks {
  started(agent: AgentStartFacts): void;
  /** `by` is set when the box ends the agent on its own; otherwise the caller of terminate is asked. */
  terminating(agent: { id: string; name: string; graceMs: number }, by?: BoxTermination): void;
  ended(agent: AgentEndFacts): void;
}

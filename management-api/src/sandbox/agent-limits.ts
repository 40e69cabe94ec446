// Per-agent budgets and figures: their shapes, the limit reasons, and the check of a sample against the budgets.

/** The budgets of `sandbox.limits` this part enforces, as the manifest writes them. */
export interface LimitSettings {
  memory: string;
  cpu_seconds: number;
  processes: number;
}

/** What a spawn request may ask: any of the budgets, each at most the manifest's. */
export interface RequestedLimits {
  memory?: string;
  cpu_seconds?: number;
  processes?: number;
}

/** The budgets one agent runs under (absent: no budget of that kind). */
export interface AgentLimits {
  memory_bytes?: number;
  cpu_seconds?: number;
  processes?: number;
}

/** One agent's resource use as last sampled. `pss_bytes` counts shared pages once across its tree. */
export interface AgentUsage {
  rss_bytes: number;
  pss_bytes: number;
  cpu_seconds: number;
  processes: number;
}

/** Why the orchestrator ended an agent on its own. */
export type LimitReason = 'limit:memory' | 'limit:cpu' | 'limit:processes';

/** Every limit reason, in the order they are checked. */
export const LIMIT_REASONS: readonly LimitReason[] = ['limit:processes', 'limit:memory', 'limit:cpu'];

/** The first budget `usage` exceeds (processes, then memory, then CPU), or undefined. Memory is judged by PSS. */
export function overBudget(usage: AgentUsage, limits: AgentLimits): LimitReason | undefined {
  if (limits.processes !== undefined && usage.processes > limits.processes) return 'limit:processes';
  if (limits.memory_bytes !== undefined && usage.pss_bytes > limits.memory_bytes) return 'limit:memory';
  if (limits.cpu_seconds !== undefined && usage.cpu_seconds > limits.cpu_seconds) return 'limit:cpu';
  return undefined;
}

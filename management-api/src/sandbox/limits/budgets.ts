// Per-agent budgets and figures: their shapes, the limit reasons, and the check of a sample against the budgets.
import { readFileSync } from 'node:fs';

/** The budgets of `sandbox.limits` this part enforces, as the manifest writes them. */
export interface LimitSettings {
  memory: string;
  cpu_seconds: number;
  processes: number;
  /** Absent in settings written before the disk budget existed (tests): no disk budget then. */
  disk?: string;
  /** Entries under the agent's directories the box measures (absent: the walk's own cap, MAX_WALK_ENTRIES). */
  entries?: number;
}

/** What a spawn request may ask: any of the budgets, each at most the manifest's. */
export interface RequestedLimits {
  memory?: string;
  cpu_seconds?: number;
  processes?: number;
  disk?: string;
  entries?: number;
}

/** The budgets one agent runs under (absent: no budget of that kind). */
export interface AgentLimits {
  memory_bytes?: number;
  cpu_seconds?: number;
  processes?: number;
  disk_bytes?: number;
  /** Entries under its directories a disk walk measures and a snapshot of them may hold: more counts as over the disk budget. */
  entries?: number;
}

/**
 * One agent's resource use as last sampled. `pss_bytes` counts shared pages once across its tree;
 * `disk_bytes` (blocks allocated under its directories) is present once a disk walk measured it.
 */
export interface AgentUsage {
  rss_bytes: number;
  pss_bytes: number;
  /** Memory files (memfd) its processes hold open, each once: memory no resident set shows until it is mapped (held-files.ts). */
  memfd_bytes?: number;
  /** inotify instances its processes hold (by descriptor), against INOTIFY_INSTANCES. */
  inotify_instances?: number;
  /** The watches of those instances, against INOTIFY_WATCHES (counted up to one past it). */
  inotify_watches?: number;
  cpu_seconds: number;
  processes: number;
  disk_bytes?: number;
  /** Entries below its directories as of that walk, against limits.entries (at least that many when the walk stopped early, over a budget). */
  disk_entries?: number;
  /** When the walk that measured `disk_bytes` began (ISO 8601): files written since may be missing from it. */
  disk_measured_at?: string;
}

/** Why the orchestrator ended an agent on its own. */
export type LimitReason = 'limit:memory' | 'limit:cpu' | 'limit:processes' | 'limit:disk' | 'limit:entries' | 'limit:inotify';

/**
 * inotify instances one agent may hold. The kernel counts them per uid
 * (fs.inotify.max_user_instances, 128 by default) for every process of that uid, in any user
 * namespace, the box's own included: an agent that took them all would leave the others' file
 * watchers (and the box's) failing with EMFILE. A watcher needs one per event loop (libuv, Python's
 * watchdog), so a few are plenty.
 */
export const INOTIFY_INSTANCES = 16;

/**
 * inotify watches one agent may hold: an eighth of the uid's (fs.inotify.max_user_watches, counted
 * as instances are, across user namespaces), at most 8,192. Each watch is a directory or file a
 * watcher follows: a project's source tree without its dependencies is a few thousand at most, and
 * an agent that watched every file it can read (a few hundred thousand in /usr and /nix) would
 * leave every other watcher of the uid failing with ENOSPC.
 */
export const INOTIFY_WATCHES = Math.min(8192, Math.max(1024, Math.floor(maxUserWatches() / 8)));

/** fs.inotify.max_user_watches, or the kernel's smallest default where it cannot be read. */
function maxUserWatches(): number {
  try {
    const value = Number.parseInt(readFileSync('/proc/sys/fs/inotify/max_user_watches', 'utf8'), 10);
    return Number.isFinite(value) && value > 0 ? value : 8192;
  } catch {
    return 8192;
  }
}

/** Every limit reason, in the order they are checked (disk and entries last: they are measured on their own walk, less often). */
export const LIMIT_REASONS: readonly LimitReason[] = ['limit:processes', 'limit:memory', 'limit:cpu', 'limit:inotify', 'limit:disk', 'limit:entries'];

/** The memory an agent is judged by: its PSS and the memory files it holds. */
export function judgedMemory(usage: AgentUsage): number {
  return usage.pss_bytes + (usage.memfd_bytes ?? 0);
}

/** The first budget `usage` exceeds (processes, then memory, then CPU, then inotify instances), or undefined. Memory is judged by PSS plus held memory files. */
export function overBudget(usage: AgentUsage, limits: AgentLimits): LimitReason | undefined {
  if (limits.processes !== undefined && usage.processes > limits.processes) return 'limit:processes';
  if (limits.memory_bytes !== undefined && judgedMemory(usage) > limits.memory_bytes) return 'limit:memory';
  if (limits.cpu_seconds !== undefined && usage.cpu_seconds > limits.cpu_seconds) return 'limit:cpu';
  if ((usage.inotify_instances ?? 0) > INOTIFY_INSTANCES || (usage.inotify_watches ?? 0) > INOTIFY_WATCHES) return 'limit:inotify';
  return undefined;
}

// The orchestrator slot: agent processes — spawn, list, status, output, terminate.
import type { AdapterLifecycle } from '../adapter.js';
import type { AgentLimits, AgentUsage, LimitReason, RequestedLimits } from '../../sandbox/limits/budgets.js';
import type { Autonomy } from '../../policy/policy-types.js';
import type { AgentTerminalHandle } from './agent-terminal.js';
import type { ExecRequest } from './agent-exec.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.0.0';

/** What a caller asks to run. Environment values are plain configuration; secrets are never passed through. */
export interface SpawnRequest {
  name: string;
  command: string;
  args: string[];
  /** Extra variables, filtered through the orchestrator's allowlist. */
  env?: Record<string, string>;
  /** Working directory relative to the workspace. */
  cwd?: string;
  /** Budgets below the manifest's `sandbox.limits` (a request may lower them, never raise them). */
  limits?: RequestedLimits;
  /** How the agent meets a [policy] ask (its egress and provider calls); the policy's default when absent. */
  autonomy?: Autonomy;
  /** Run the agent on a pseudo-terminal (its stdin, stdout and stderr), with this size (defaults 120 × 40). */
  tty?: boolean;
  cols?: number;
  rows?: number;
  /** The manifest profile it was started from (agents.profiles.<name>), when one. */
  profile?: string;
  /** Providers whose broker addresses it is given, and which the broker serves it; all brokered providers when absent (an ad-hoc spawn). */
  providers?: readonly string[];
  /** Egress entries its proxy credential admits on top of the box's allowlist (a profile's egress.allow_domains). */
  allowDomains?: readonly string[];
  /** End it this many seconds after its start (reason `timeout`). */
  timeoutSec?: number;
  /** End it after this many seconds without output (nor, on a terminal, input): reason `idle`. */
  idleTimeoutSec?: number;
}

/** Why a deadline ended an agent: timeout_sec or idle_timeout_sec (agent-deadlines.ts). */
export type DeadlineReason = 'timeout' | 'idle';

/** Where an agent process is in its life. */
export type AgentState = 'starting' | 'running' | 'exited' | 'failed' | 'terminated' | 'crash-loop';

/** An agent process as the orchestrator knows it. */
export interface AgentProcess {
  id: string;
  name: string;
  command: string;
  args: string[];
  state: AgentState;
  pid?: number;
  exitCode?: number;
  /** The signal that ended the process, when one did (`SIGTERM`, `SIGKILL`, …); then `exitCode` is absent. */
  signal?: string;
  startedAt: string;
  endedAt?: string;
  /** Resource use of the agent's process tree as last sampled (about once a second); kept after the exit. */
  usage?: AgentUsage;
  /** The budgets the agent runs under. */
  limits?: AgentLimits;
  /** Why the orchestrator ended the agent on its own: a budget (`limit:memory`, `limit:cpu`, `limit:processes`, `limit:inotify`, `limit:disk`, `limit:entries`) or a deadline (`timeout`, `idle`). */
  reason?: LimitReason | DeadlineReason;
  /** Milliseconds from its start to its end, once ended. */
  durationMs?: number;
  /** The manifest profile it was started from. */
  profile?: string;
  /** The agent runs on a pseudo-terminal (GET /v1/agents/:id/terminal). */
  tty?: boolean;
  /** Its working directory relative to the box's workspace (`.` for the workspace itself); the files API serves it. */
  cwd?: string;
  /** A command exec'd into this agent (POST /v1/agents/:id/exec): it runs in that agent's sandbox and ends with it. */
  execOf?: string;
}

/** One chunk of captured output. */
export interface OutputChunk {
  /** Position in the agent's output, strictly increasing. */
  seq: number;
  stream: 'stdout' | 'stderr';
  time: string;
  text: string;
}

/** Options of {@link OrchestratorAdapter.output}. */
export interface OutputRequest {
  /** Only chunks with `seq` greater than this. */
  after?: number;
  /** Keep yielding new output until the agent ends or `signal` aborts. */
  follow: boolean;
  signal: AbortSignal;
}

/** Agent processes. Unknown ids reject with AdapterNotFoundError. */
export interface OrchestratorAdapter extends AdapterLifecycle {
  spawn(request: SpawnRequest): Promise<AgentProcess>;
  list(): Promise<AgentProcess[]>;
  status(id: string): Promise<AgentProcess>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the final state. */
  terminate(id: string, graceMs: number): Promise<AgentProcess>;
  /** Resolves once the stream is open. */
  output(id: string, request: OutputRequest): Promise<AsyncIterable<OutputChunk>>;
  /** The terminal of a tty agent, to attach viewers to; 409 ABX_ERR_NO_TERMINAL for an agent without one. */
  terminal(id: string): Promise<AgentTerminalHandle>;
  /** Type `data` into a running tty agent's terminal; 409 ABX_ERR_NO_TERMINAL without one or once it ended. */
  input(id: string, data: string): Promise<void>;
  /** Run a command in running agent `id`'s sandbox, directory and identity; ended with it. */
  exec(id: string, request: ExecRequest): Promise<AgentProcess>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const ORCHESTRATOR_OPERATIONS = ['spawn', 'list', 'status', 'terminate', 'output', 'terminal', 'input', 'exec'] as const satisfies ReadonlyArray<
  keyof OrchestratorAdapter
>;

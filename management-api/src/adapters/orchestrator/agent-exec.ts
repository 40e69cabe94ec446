// Commands exec'd into a running agent: what each agent was started with (to start a command the same way), and which commands run in it.
import type { ChildProcess } from 'node:child_process';
import { AdapterConflictError, AdapterInputError } from '../../adapter-errors.js';
import type { AgentLimits } from '../../sandbox/limits/budgets.js';
import type { ConfinedSpawn } from '../../sandbox/agent-sandbox.js';
import { launcherReady } from '../../sandbox/namespace-sandbox.js';
import { agentEnvironment } from './agent-env.js';

/** What a caller asks to run inside a running agent: its sandbox, directory, uid, egress credential and API token are the agent's. */
export interface ExecRequest {
  command: string;
  args: string[];
  /** Extra, non-secret variables on top of the agent's own environment. */
  env?: Record<string, string>;
  tty?: boolean;
  cols?: number;
  rows?: number;
}

/** How a running agent was started: the same inputs start a command inside it. */
export interface ExecHost {
  name: string;
  /** The sandbox's input for the agent (its real working directory, workspace, memory budget). */
  target: { id: string; name: string; cwd: string; workspace: string; memoryBudget?: number };
  /** The agent's complete environment: its proxy credential, API token, TMPDIR and HOME included. */
  env: Record<string, string>;
  limits: AgentLimits;
}

/** The running agents commands may be exec'd into, and the commands running in each. */
export class ExecHosts {
  readonly #hosts = new Map<string, ExecHost>();
  readonly #children = new Map<string, Set<string>>();
  /** Exec'd command → the agent it runs in. */
  readonly #parents = new Map<string, string>();

  /** Agent `id` started as `host`. */
  add(id: string, host: ExecHost): void {
    this.#hosts.set(id, host);
  }

  /** The host of a live agent `id` (live: the caller checked); refused for an exec'd command. */
  host(id: string): ExecHost {
    const parent = this.#parents.get(id);
    if (parent) throw new AdapterConflictError(`${id} is a command exec'd into agent ${parent}; exec into ${parent} instead`);
    const host = this.#hosts.get(id);
    if (!host) throw new AdapterConflictError(`agent ${id} cannot be exec'd into: it was not started by this process manager`);
    return host;
  }

  /** Command `child` runs in agent `parent`. */
  attach(parent: string, child: string): void {
    this.#parents.set(child, parent);
    const set = this.#children.get(parent) ?? new Set();
    set.add(child);
    this.#children.set(parent, set);
  }

  /** The agent exec'd command `id` runs in, if it is one. */
  parentOf(id: string): string | undefined {
    return this.#parents.get(id);
  }

  /** `id` ended: as a host, the commands still running in it (to end them); as a command, it leaves its host's set. */
  ended(id: string): string[] {
    this.#hosts.delete(id);
    const parent = this.#parents.get(id);
    if (parent) this.#children.get(parent)?.delete(id);
    const children = [...(this.#children.get(id) ?? [])];
    this.#children.delete(id);
    return children;
  }

  /** Forget an evicted record. */
  forget(id: string): void {
    this.#parents.delete(id);
  }
}

/** Refuse a malformed exec request with AdapterInputError (the adapter may be called without a route in front). */
export function checkExecRequest(request: ExecRequest): void {
  if (!request || typeof request !== 'object') throw new AdapterInputError('an exec request is an object with command and args');
  if (typeof request.command !== 'string' || request.command === '' || request.command.includes('\u0000'))
    throw new AdapterInputError('command must be a non-empty string without NUL bytes');
  if (!Array.isArray(request.args) || request.args.length > 256 || !request.args.every((a) => typeof a === 'string' && !a.includes('\u0000')))
    throw new AdapterInputError('args must be an array of at most 256 strings without NUL bytes');
  if (!request.tty && (request.cols !== undefined || request.rows !== undefined))
    throw new AdapterInputError('cols and rows size a terminal: they need tty: true');
}

/** The exec'd command's environment: the agent's, the checked extras, and its own id beside the agent's. */
export function execEnvironment(host: ExecHost, requested: Record<string, string> | undefined, execId: string): Record<string, string> {
  // agentEnvironment refuses secret-looking and reserved names; only the extras are taken from its result.
  const extras = agentEnvironment({}, requested, {});
  for (const name of Object.keys(extras)) if (!(requested && name in requested)) delete extras[name];
  return { ...host.env, ...extras, AGENTBOX_EXEC_ID: execId };
}

/**
 * Resolves once `child` runs (a keeper at once; in bubblewrap once the launcher's ready byte came),
 * with what the ready pipe held after that byte; rejects as a spawn error.
 */
export function whenStarted(child: ChildProcess, confined: ConfinedSpawn, command: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    child.once('spawn', () => (confined.keeper ? resolve('') : void launcherReady(child.stdio[3] as NodeJS.ReadableStream | null).then(resolve)));
    child.once('error', (err: NodeJS.ErrnoException) => reject(new AdapterInputError(`cannot start ${JSON.stringify(command)}: ${err.code ?? err.message}`)));
  });
}

/** An exec'd command's end: its own exit, never counted toward its agent's crash loop. */
export function execState(terminating: boolean, exit: { code: number | null }): 'terminated' | 'exited' | 'failed' {
  if (terminating) return 'terminated';
  return exit.code === 0 ? 'exited' : 'failed';
}

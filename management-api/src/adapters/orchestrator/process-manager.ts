// The local process manager: spawns agents in the workspace with a clean environment, tracks, streams and ends them.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import type { Logger } from 'pino';
import { ready, type NamespaceSandbox } from '../../sandbox/namespace-sandbox.js';
import { AdapterConflictError, AdapterInputError, AdapterNotFoundError, AdapterUnavailableError } from '../adapter-errors.js';
import { agentEnvironment } from './agent-env.js';
import { AgentRun } from './agent-run.js';
import { CrashLoopDetector } from './crash-loop.js';
import type { AgentProcess, AgentState, OutputChunk, OutputRequest, SpawnRequest } from './orchestrator-adapter.js';
import { PidRecords, signalGroup } from './process-group.js';
import { checkSpawnRequest, checkGraceMs } from './spawn-request.js';
import { resolveCwd } from './workspace-cwd.js';

/** How the manager is set up. */
export interface ProcessManagerOptions {
  workspaceDir: string;
  /** The environment agents' allowlisted variables are taken from (the API's own). */
  parentEnv: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** Where pid records go, so a restart can end agents a crash left behind; none when absent. */
  recordDir?: string;
  crashLoop?: CrashLoopDetector;
  maxOutputBytes?: number;
  /** Ended agents kept for status and output, oldest dropped first. */
  retainEnded?: number;
  /** Wraps each agent in its own namespaces (bubblewrap) where that is on; none: plain spawn. */
  sandbox?: NamespaceSandbox;
}

/** After SIGKILL, how long to wait for the exit before calling the process lost. */
const KILL_WAIT_MS = 5_000;
/** When an agent's leader exits, its leftover group gets this long after SIGTERM before SIGKILL. */
const LEFTOVER_GRACE_MS = 2_000;

/** Agent processes on this machine. */
export class ProcessManager {
  readonly #runs = new Map<string, AgentRun>();
  readonly #crashLoop: CrashLoopDetector;
  readonly #records: PidRecords | undefined;
  #workspace: string | undefined;

  constructor(private readonly options: ProcessManagerOptions) {
    this.#crashLoop = options.crashLoop ?? new CrashLoopDetector();
    this.#records = options.recordDir ? new PidRecords(options.recordDir, options.logger) : undefined;
  }

  /** Create the workspace if needed and end agents a previous run left behind. */
  async start(): Promise<void> {
    await mkdir(this.options.workspaceDir, { recursive: true });
    this.#workspace = await realpath(this.options.workspaceDir);
    await this.#records?.reapOrphans();
  }

  /** The workspace's real path (after start). */
  get workspace(): string | undefined {
    return this.#workspace;
  }

  /** Start an agent. Resolves once the process runs; a command that cannot start is an input error. */
  async spawn(request: SpawnRequest): Promise<AgentProcess> {
    if (!this.#workspace) throw new AdapterUnavailableError('orchestrator', 'the process manager is not started');
    checkSpawnRequest(request);
    const until = this.#crashLoop.refusedUntil(request.name);
    if (until) throw new AdapterConflictError(`agent "${request.name}" is crash-looping (${this.#crashLoop.maxFailures} failures within ${this.#crashLoop.windowMs / 1000} s); it may start again after ${until.toISOString()}`);
    const cwd = await resolveCwd(this.#workspace, request.cwd);
    const id = `agt_${randomBytes(9).toString('base64url')}`;
    const env = agentEnvironment(this.options.parentEnv, request.env, { AGENTBOX_AGENT_ID: id, AGENTBOX_AGENT_NAME: request.name, AGENTBOX_WORKSPACE: this.#workspace });
    // detached: the agent leads a process group of its own, so signals reach everything it starts.
    const launch = (await this.options.sandbox?.wrap(request.command, request.args, cwd, env['PATH'])) ?? { command: request.command, args: request.args };
    const child = spawn(launch.command, launch.args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe', ...('readyFd' in launch ? ['pipe' as const] : [])], ...launch.ids });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => void ready(child.stdio[3] as NodeJS.ReadableStream | null).then(resolve));
      child.once('error', (err: NodeJS.ErrnoException) => reject(new AdapterInputError(`cannot start ${JSON.stringify(request.command)}: ${err.code ?? err.message}${err.code === 'ENOENT' ? ' (not found on the agent PATH)' : ''}`)));
    });
    const startedAt = new Date().toISOString();
    const run = new AgentRun({ id, name: request.name, command: request.command, args: [...request.args], pid: child.pid!, startedAt }, child, (r, exit) => this.#classify(r, exit), {
      ...(this.options.maxOutputBytes ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
      onEnd: (r) => this.#ended(r),
    });
    this.#runs.set(id, run);
    // The record as of the start: a short-lived agent may end while the pid record is written.
    const started = run.snapshot();
    this.options.logger.info({ event: 'AgentSpawned', agent: id, name: request.name, pid: run.pid }, `agent ${request.name} started`);
    await this.#records?.add(id, run.pid);
    // A process that already ended had its record removed before it was written.
    if (!run.live) await this.#records?.remove(id);
    this.#evictEnded();
    return started;
  }

  /** Every known agent, oldest first. */
  list(): AgentProcess[] {
    return [...this.#runs.values()].map((r) => r.snapshot());
  }

  /** One agent. */
  status(id: string): AgentProcess {
    return this.#run(id).snapshot();
  }

  /** SIGTERM to the agent's group, SIGKILL after `graceMs`; resolves with the final record. */
  async terminate(id: string, graceMs: number): Promise<AgentProcess> {
    checkGraceMs(graceMs);
    const run = this.#run(id);
    if (!run.live) return run.snapshot();
    run.requestTermination();
    signalGroup(run.pid, 'SIGTERM');
    if (!(await run.waitExit(graceMs))) {
      signalGroup(run.pid, 'SIGKILL');
      if (!(await run.waitExit(KILL_WAIT_MS))) throw new AdapterUnavailableError('orchestrator', `agent ${id} (pid ${run.pid}) did not exit after SIGKILL`);
    }
    return run.snapshot();
  }

  /** The agent's output after `request.after`, following it live when asked. */
  output(id: string, request: OutputRequest): AsyncIterable<OutputChunk> {
    return this.#run(id).output.read(request.after ?? 0, request.follow, request.signal);
  }

  /** The output kept for `id`, without waiting. */
  outputLog(id: string) {
    return this.#run(id).output;
  }

  /** Terminate every live agent (in parallel), each with `graceMs`. */
  async closeAll(graceMs: number): Promise<void> {
    await Promise.allSettled([...this.#runs.values()].filter((r) => r.live).map((r) => this.terminate(r.id, graceMs)));
  }

  #run(id: string): AgentRun {
    const run = typeof id === 'string' ? this.#runs.get(id) : undefined;
    if (!run) throw new AdapterNotFoundError(`agent ${JSON.stringify(id)}`);
    return run;
  }

  #classify(run: AgentRun, exit: { code: number | null; signal: NodeJS.Signals | null }): AgentState {
    if (run.terminating) return 'terminated';
    if (exit.code === 0) {
      this.#crashLoop.recordSuccess(run.name);
      return 'exited';
    }
    return this.#crashLoop.recordFailure(run.name) ? 'crash-loop' : 'failed';
  }

  #ended(run: AgentRun): void {
    const info = run.snapshot();
    this.options.logger.info({ event: 'AgentExited', agent: info.id, name: info.name, state: info.state, exitCode: info.exitCode, signal: info.signal }, `agent ${info.name} ${info.state}`);
    void this.#records?.remove(info.id);
    // The leader is gone; whatever it left running in its group goes too (after a short grace).
    try {
      if (signalGroup(run.pid, 'SIGTERM')) setTimeout(() => quietly(() => signalGroup(run.pid, 'SIGKILL')), LEFTOVER_GRACE_MS).unref();
    } catch (err) {
      this.options.logger.warn({ event: 'AgentGroupSignalFailed', agent: info.id, err }, 'could not signal what the agent left running');
    }
  }

  #evictEnded(): void {
    const ended = [...this.#runs.values()].filter((r) => !r.live);
    const excess = ended.length - (this.options.retainEnded ?? 200);
    for (const run of ended.slice(0, Math.max(0, excess))) this.#runs.delete(run.id);
  }
}

function quietly(fn: () => unknown): void {
  try {
    fn();
  } catch {
    // Best effort: the group may belong to another user by now, or be gone.
  }
}

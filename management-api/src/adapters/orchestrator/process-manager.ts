// The local process manager: spawns agents in the workspace with a clean environment, tracks, streams and ends them.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { AgentAccounting, LIMIT_GRACE_MS } from '../../sandbox/limits/accounting.js';
import type { AgentAuditHooks, BoxTermination, SandboxMode } from '../../sandbox/agent-audit-hooks.js';
import type { AgentCredentialHooks } from '../../credentials/hooks.js';
import { AdapterConflictError, AdapterInputError, AdapterNotFoundError, AdapterUnavailableError } from '../../adapter-errors.js';
import { agentEnvironment } from './agent-env.js';
import { AgentRun } from './agent-run.js';
import { CrashLoopDetector } from './crash-loop.js';
import type { AgentProcess, AgentState, OutputChunk, OutputRequest, SpawnRequest } from './orchestrator-adapter.js';
import { PidRecords, signalGroup } from './process-group.js';
import { checkSpawnRequest, checkGraceMs } from './spawn-request.js';
import { agentCwd } from './workspace-cwd.js';
import { unconfined, type AgentSandbox, type ConfinedSpawn } from '../../sandbox/agent-sandbox.js';
import { launcherReady } from '../../sandbox/namespace-sandbox.js';
import { checkCommand } from '../../sandbox/agent-command.js';
import type { AgentEgress } from '../../egress/agent-credential.js';
import { agentDirectories } from '../../sandbox/agent-directories.js';
import { followKeeperReports } from '../../sandbox/keeper-reports.js';
import { TtyAgents } from './tty-agents.js';
import { TTY_TERM } from './agent-tty.js';
import { AgentDeadlines, type DeadlineReason } from './agent-deadlines.js';
import type { AgentTerminalHandle } from './agent-terminal.js';
import type { AgentInputHooks } from './agent-input-hooks.js';
import { checkExecRequest, execEnvironment, ExecHosts, execState, whenStarted, type ExecRequest } from './agent-exec.js';

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
  /** Budgets and sampling of agents' resource use; without it, figures only (no ceiling but a request's). */
  accounting?: AgentAccounting;
  /** Every agent runs through it (confined unless its settings turn it off); none: unconfined (the reference stdio server). */
  sandbox?: AgentSandbox;
  /** Each agent's own API token and provider addresses (credentials/agent-credentials.ts): issued at spawn, revoked at exit. */
  credentials?: AgentCredentialHooks;
  /** Gives each agent its own egress proxy credential (sandbox/); none when absent. */
  egress?: AgentEgress;
  /** Told of every start, termination request and exit, as they happen (the audit trail); none when absent. */
  audit?: AgentAuditHooks;
  /** Told of prompts on tty agents' quiet terminals and of every agent's end (the input requests); none when absent. */
  input?: AgentInputHooks;
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
  readonly #accounting: AgentAccounting;
  readonly #confined = new Map<string, ConfinedSpawn>();
  readonly #ttys: TtyAgents;
  readonly #execs = new ExecHosts();
  readonly #deadlines = new AgentDeadlines();
  /** Agents a deadline ended (timeout_sec, idle_timeout_sec), and the profile each was started from. */
  readonly #deadlineReasons = new Map<string, DeadlineReason>();
  readonly #profiles = new Map<string, string>();
  #workspace: string | undefined;

  constructor(private readonly options: ProcessManagerOptions) {
    this.#crashLoop = options.crashLoop ?? new CrashLoopDetector();
    this.#records = options.recordDir ? new PidRecords(options.recordDir, options.logger) : undefined;
    this.#accounting = options.accounting ?? new AgentAccounting({ logger: options.logger });
    this.#ttys = new TtyAgents(options.input, options.logger);
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
    const limits = this.#accounting.limitsFor(request.limits);
    this.options.credentials?.check(request);
    const until = this.#crashLoop.refusedUntil(request.name);
    if (until)
      throw new AdapterConflictError(
        `agent "${request.name}" is crash-looping (${this.#crashLoop.maxFailures} failures within ${this.#crashLoop.windowMs / 1000} s); it may start again after ${until.toISOString()}`,
      );
    const cwd = await agentCwd(this.#workspace, request.cwd, request.name);
    const id = `agt_${randomBytes(9).toString('base64url')}`;
    const box = { AGENTBOX_AGENT_ID: id, AGENTBOX_AGENT_NAME: request.name, AGENTBOX_WORKSPACE: this.#workspace };
    let env = agentEnvironment(this.options.parentEnv, request.env, box);
    // A tty agent's terminal is an xterm (the box's screen and the dashboard's view), whatever the API's own TERM: say so unless the caller did.
    if (request.tty && request.env?.['TERM'] === undefined) env['TERM'] = TTY_TERM;
    // Through the sandbox launcher (fail closed); the command is checked first, as the launcher would only exit 127.
    const target = {
      id,
      name: request.name,
      command: checkCommand(request.command, env['PATH']),
      args: request.args,
      cwd,
      workspace: this.#workspace,
      ...(limits.memory_bytes ? { memoryBudget: limits.memory_bytes } : {}),
    };
    // The agent's own proxy credential first (revoked if it cannot start, and when it exits, in
    // #ended): issuing it tells which port the proxy listens on, which the sandbox lets the agent reach.
    const proxyEnv = this.options.egress
      ? await this.options.egress.issue(id, {
          name: request.name,
          ...(request.autonomy ? { autonomy: request.autonomy } : {}),
          ...(request.allowDomains?.length ? { allowDomains: [...request.allowDomains] } : {}),
        })
      : {};
    const confined = await (this.options.sandbox ? this.options.sandbox.confine(target) : Promise.resolve(unconfined(target))).catch((err: unknown) => {
      this.options.egress?.revoke(id);
      throw err;
    });
    // Issued once the request passed every check, so a refused spawn leaves no live token behind.
    env = {
      ...env,
      ...confined.env,
      ...proxyEnv,
      ...this.options.credentials?.issue({
        id,
        name: request.name,
        ...(request.autonomy ? { autonomy: request.autonomy } : {}),
        ...(request.providers ? { providers: request.providers } : {}),
      }),
    };
    // detached: the agent leads a process group of its own, so signals reach everything it starts.
    // In bubblewrap: unprivileged ids when the box runs as root, and a ready pipe the launcher writes once its forwarder listens.
    // A tty agent: the same launcher argv with its terminal set up first (tty-agents.ts).
    const onTty = (() => {
      try {
        return this.#ttys.prepare(request, confined, this.options.sandbox?.launcher);
      } catch (err) {
        void confined.release();
        this.options.credentials?.revoke(id);
        this.options.egress?.revoke(id);
        throw err;
      }
    })();
    const how = onTty ?? { command: confined.command, args: confined.args, stdio: ['ignore', 'pipe', 'pipe', ...(confined.readyFd ? ['pipe' as const] : [])] };
    const child = spawn(how.command, how.args, { cwd, env, detached: true, stdio: how.stdio as StdioOptions, ...confined.ids });
    // Its output and exit are listened to from here on: inside bubblewrap the wait below is for the
    // launcher's ready byte, and a quick agent may have written everything and ended by then.
    const startedAt = new Date().toISOString();
    const run = new AgentRun(
      {
        id,
        name: request.name,
        command: request.command,
        args: [...request.args],
        pid: child.pid!,
        startedAt,
        cwd: path.relative(this.#workspace, cwd) || '.',
      },
      child,
      (r, exit) => this.#classify(r, exit),
      {
        ...(this.options.maxOutputBytes ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
        onEnd: (r) => this.#ended(r),
        ...(onTty ? { terminalOutput: true } : {}),
      },
    );
    // What the ready pipe held after the launcher's byte: a report may already be there.
    const afterReady = await new Promise<string>((resolve, reject) => {
      // A keeper is ready once it runs (a signal before its handlers ends it before it forks the
      // agent); its pipe carries its reports. Inside bubblewrap the launcher's byte says its forwarder listens.
      child.once('spawn', () => (confined.keeper ? resolve('') : void launcherReady(child.stdio[3] as NodeJS.ReadableStream | null).then(resolve)));
      child.once('error', (err: NodeJS.ErrnoException) =>
        reject(
          new AdapterInputError(
            `cannot start ${JSON.stringify(request.command)}: ${err.code ?? err.message}${err.code === 'ENOENT' ? ' (not found on the agent PATH)' : ''}`,
          ),
        ),
      );
    }).catch(async (err: unknown) => {
      onTty?.tty.close();
      await confined.release();
      this.options.credentials?.revoke(id);
      this.options.egress?.revoke(id);
      throw err;
    });
    this.#confined.set(id, confined);
    run.begin();
    this.#runs.set(id, run);
    this.#execs.add(id, { name: request.name, target, env, limits });
    if (request.profile !== undefined) this.#profiles.set(id, request.profile);
    if (onTty) this.#ttys.follow(run, onTty.tty);
    // Before anything can end it: its exit is only seen in a later turn of the event loop, so the start is recorded first.
    this.options.audit?.started({
      id,
      name: request.name,
      command: request.command,
      args: request.args,
      cwd: path.relative(this.#workspace, cwd) || '.',
      envNames: Object.keys(request.env ?? {}),
      limits,
      sandbox: sandboxMode(confined),
      pid: run.pid,
      startedAt,
    });
    const overBudget = () => this.#terminate(id, LIMIT_GRACE_MS, { kind: 'box', reason: this.#accounting.account(id)?.reason ?? 'limit' });
    this.#accounting.follow(id, run.pid, limits, overBudget, { ...treeShape(confined), directories: agentDirectories(target, confined) });
    this.#followLimitReports(run, child, confined, afterReady);
    // Ended through the same path as a DELETE, by the box, so the reason is on the record and in the audit trail.
    const deadlines = { ...optional('timeoutSec', request.timeoutSec), ...optional('idleTimeoutSec', request.idleTimeoutSec) };
    if (run.live)
      this.#deadlines.follow(id, { ...deadlines, output: run.output, ...(onTty ? { lastInputAt: () => this.#ttys.lastInputAt(id) } : {}) }, (reason) => {
        if (!run.live || run.terminating) return;
        this.#deadlineReasons.set(id, reason);
        this.#terminate(id, LIMIT_GRACE_MS, { kind: 'box', reason }).catch((err: unknown) =>
          this.options.logger.error({ event: 'AgentDeadlineEndFailed', agent: id, reason, err }, `could not end agent ${request.name} (${reason})`),
        );
      });
    // The record as of the start: a short-lived agent may end while the pid record is written.
    const started = this.#record(run);
    this.options.logger.info({ event: 'AgentSpawned', agent: id, name: request.name, pid: run.pid }, `agent ${request.name} started`);
    await this.#records?.add(id, run.pid);
    // A process that already ended had its record removed before it was written.
    if (!run.live) await this.#records?.remove(id);
    this.#evictEnded();
    return started;
  }

  /**
   * Run a command in live agent `targetId`: its sandbox policy (same launcher argv, Landlock grants
   * and uid), its directory and temporary directory, its environment (its egress credential and API
   * token: what the command does is the agent's), under a budget of the agent's limits; ended with it.
   */
  async exec(targetId: string, request: ExecRequest): Promise<AgentProcess> {
    if (!this.#workspace) throw new AdapterUnavailableError('orchestrator', 'the process manager is not started');
    checkExecRequest(request);
    const host = this.#execs.host(targetId);
    if (!this.#run(targetId).live) throw new AdapterConflictError(`agent ${targetId} has ended; a command runs only in a running agent`);
    const id = `agt_${randomBytes(9).toString('base64url')}`;
    const env = execEnvironment(host, request.env, id);
    const target = { ...host.target, command: checkCommand(request.command, env['PATH']), args: request.args };
    const confined = await (this.options.sandbox ? this.options.sandbox.confine(target, { joining: targetId }) : Promise.resolve(unconfined(target)));
    const onTty = this.#ttys.prepare({ name: host.name, ...request }, confined, this.options.sandbox?.launcher);
    const how = onTty ?? { command: confined.command, args: confined.args, stdio: ['ignore', 'pipe', 'pipe', ...(confined.readyFd ? ['pipe' as const] : [])] };
    const child = spawn(how.command, how.args, {
      cwd: target.cwd,
      env: { ...env, ...confined.env },
      detached: true,
      stdio: how.stdio as StdioOptions,
      ...confined.ids,
    });
    // Listened to from the spawn on, as an agent is (spawn above).
    const run = new AgentRun(
      { id, name: host.name, command: request.command, args: [...request.args], pid: child.pid!, startedAt: new Date().toISOString(), execOf: targetId },
      child,
      (r, exit) => execState(r.terminating, exit),
      {
        ...(this.options.maxOutputBytes ? { maxOutputBytes: this.options.maxOutputBytes } : {}),
        onEnd: (r) => this.#ended(r),
        ...(onTty ? { terminalOutput: true } : {}),
      },
    );
    const afterReady = await whenStarted(child, confined, request.command).catch((err: unknown) => {
      onTty?.tty.close();
      throw err;
    });
    this.#confined.set(id, confined);
    this.#execs.attach(targetId, id);
    run.begin();
    this.#runs.set(id, run);
    if (onTty) this.#ttys.follow(run, onTty.tty);
    this.options.audit?.started({
      id,
      name: host.name,
      command: request.command,
      args: request.args,
      cwd: path.relative(this.#workspace, target.cwd) || '.',
      envNames: Object.keys(request.env ?? {}),
      limits: host.limits,
      sandbox: sandboxMode(confined),
      pid: run.pid,
      startedAt: run.snapshot().startedAt,
    });
    const overBudget = () => this.#terminate(id, LIMIT_GRACE_MS, { kind: 'box', reason: this.#accounting.account(id)?.reason ?? 'limit' });
    this.#accounting.follow(id, run.pid, host.limits, overBudget, treeShape(confined));
    this.#followLimitReports(run, child, confined, afterReady);
    const started = this.#record(run);
    this.options.logger.info(
      { event: 'AgentExecStarted', agent: id, execOf: targetId, name: host.name, pid: run.pid },
      `command exec'd into agent ${targetId}`,
    );
    await this.#records?.add(id, run.pid);
    if (!run.live) await this.#records?.remove(id);
    // The agent may have ended while the command started: the command goes too.
    if (!this.#runs.get(targetId)?.live) void this.#terminate(id, 0, { kind: 'box', reason: 'agent-ended' }).catch(() => undefined);
    this.#evictEnded();
    return started;
  }

  /** Every known agent, oldest first. */
  list(): AgentProcess[] {
    return [...this.#runs.values()].map((r) => this.#record(r));
  }

  /** One agent. */
  status(id: string): AgentProcess {
    return this.#record(this.#run(id));
  }

  /**
   * The launcher that stays beside the agent (the keeper, or the waiting parent in bubblewrap) and
   * ended it over its memory between two samples says so on its ready pipe: recorded as the
   * accounting's own termination would be, in the audit trail and on the record.
   */
  #followLimitReports(run: AgentRun, child: ChildProcess, confined: ConfinedSpawn, afterReady: string): void {
    if (!confined.limitReports) return;
    followKeeperReports(
      child.stdio[3] as NodeJS.ReadableStream | null,
      (reason, bytes) => {
        if (run.live && !run.terminating) this.options.audit?.terminating({ id: run.id, name: run.name, graceMs: 0 }, { kind: 'box', reason });
        run.requestTermination();
        this.#accounting.endedBySandbox(run.id, reason, { residentBytes: bytes });
      },
      afterReady,
    );
  }

  /** SIGTERM to the agent's group, SIGKILL after `graceMs`; resolves with the final record. */
  async terminate(id: string, graceMs: number): Promise<AgentProcess> {
    return this.#terminate(id, graceMs);
  }

  /** {@link terminate}, by the box itself when `by` is given (the audit trail asks the caller otherwise). */
  async #terminate(id: string, graceMs: number, by?: BoxTermination): Promise<AgentProcess> {
    checkGraceMs(graceMs);
    const run = this.#run(id);
    if (!run.live) return this.#record(run);
    // Once per agent: a second request while it is ending changes nothing.
    if (!run.terminating) this.options.audit?.terminating({ id, name: run.name, graceMs }, by);
    run.requestTermination();
    // From the first signal on, whatever the agent still sends is refused.
    this.options.credentials?.revoke(id);
    // A keeper (the launcher without bubblewrap) passes SIGTERM to every process of the agent,
    // however it detached, and on SIGUSR1 kills them all; the group is signalled only if it
    // does not end (it would die before it could kill what left the group).
    const keeper = this.#confined.get(id)?.keeper === true;
    if (keeper) quietly(() => process.kill(run.pid, 'SIGTERM'));
    else signalGroup(run.pid, 'SIGTERM');
    if (!(await run.waitExit(graceMs))) {
      if (keeper) quietly(() => process.kill(run.pid, 'SIGUSR1'));
      if (!keeper || !(await run.waitExit(KILL_WAIT_MS))) signalGroup(run.pid, 'SIGKILL');
      if (!(await run.waitExit(KILL_WAIT_MS))) throw new AdapterUnavailableError('orchestrator', `agent ${id} (pid ${run.pid}) did not exit after SIGKILL`);
    }
    return this.#record(run);
  }

  /** The agent's output after `request.after`, following it live when asked. */
  output(id: string, request: OutputRequest): AsyncIterable<OutputChunk> {
    return this.#run(id).output.read(request.after ?? 0, request.follow, request.signal);
  }

  /** The output kept for `id`, without waiting. */
  outputLog(id: string) {
    return this.#run(id).output;
  }

  /** The terminal of tty agent `id`. */
  terminal(id: string): AgentTerminalHandle {
    return this.#ttys.terminal(this.#run(id));
  }

  /** Type `data` into tty agent `id`'s terminal. */
  input(id: string, data: string): void {
    this.#ttys.input(this.#run(id), data);
  }

  /** Terminate every live agent (in parallel), each with `graceMs`. */
  async closeAll(graceMs: number): Promise<void> {
    await Promise.allSettled([...this.#runs.values()].filter((r) => r.live).map((r) => this.#terminate(r.id, graceMs, { kind: 'box', reason: 'shutdown' })));
    this.#accounting.close();
    await this.#ttys.close();
  }

  /** The run's record with its accounting (budgets, figures, limit reason). */
  #record(run: AgentRun): AgentProcess {
    const info: AgentProcess = { ...run.snapshot(), ...this.#accounting.account(run.id) };
    const deadline = this.#deadlineReasons.get(run.id);
    if (deadline && !info.reason) info.reason = deadline;
    const profile = this.#profiles.get(run.id);
    if (profile !== undefined) info.profile = profile;
    if (info.endedAt) info.durationMs = Date.parse(info.endedAt) - Date.parse(info.startedAt);
    return info;
  }

  #run(id: string): AgentRun {
    const run = typeof id === 'string' ? this.#runs.get(id) : undefined;
    if (!run) throw new AdapterNotFoundError(`agent ${JSON.stringify(id)}`);
    return run;
  }

  #classify(run: AgentRun, exit: { code: number | null; signal: NodeJS.Signals | null }): AgentState {
    if (run.terminating) {
      // Ended over a budget (reason limit:*): nobody asked it to stop, so it counts as a failure
      // of its name, and an agent that goes over its budget run after run is a crash loop.
      // A deadline (timeout, idle) is the operator's own bound, not a failure of the agent.
      if (this.#deadlineReasons.has(run.id)) return 'terminated';
      if (this.#accounting.account(run.id)?.reason) return this.#crashLoop.recordFailure(run.name) ? 'crash-loop' : 'terminated';
      return 'terminated';
    }
    if (exit.code === 0) {
      this.#crashLoop.recordSuccess(run.name);
      return 'exited';
    }
    return this.#crashLoop.recordFailure(run.name) ? 'crash-loop' : 'failed';
  }

  #ended(run: AgentRun): void {
    // Commands exec'd into it end with it (docker exec's are ended with their container the same way).
    for (const child of this.#execs.ended(run.id))
      void this.#terminate(child, LEFTOVER_GRACE_MS, { kind: 'box', reason: 'agent-ended' }).catch(() => undefined);
    this.#accounting.ended(run.id);
    this.#deadlines.forget(run.id);
    const info = this.#record(run);
    this.options.audit?.ended({
      ...info,
      reason: info.reason ?? endReason(run, info),
      startedAt: info.startedAt,
      endedAt: info.endedAt!,
      ...optional('peakPssBytes', this.#accounting.peakPss(info.id)),
    });
    this.#ttys.ended(info);
    this.options.input?.ended(info.id);
    this.options.logger.info(
      {
        event: 'AgentExited',
        agent: info.id,
        name: info.name,
        state: info.state,
        exitCode: info.exitCode,
        signal: info.signal,
        reason: info.reason,
        usage: info.usage,
      },
      `agent ${info.name} ${info.state}${info.reason ? ` (${info.reason})` : ''}`,
    );
    void this.#records?.remove(info.id);
    const confined = this.#confined.get(info.id);
    this.#confined.delete(info.id);
    // What the agent left (its temporary directory) is its own to shape: a clean-up that fails is
    // logged, never left to reject unhandled (which would end the API and every other agent).
    confined
      ?.release()
      .catch((err: unknown) => this.options.logger.error({ event: 'AgentCleanupFailed', agent: info.id, err }, `could not clean up after agent ${info.name}`));
    this.options.credentials?.revoke(info.id);
    this.options.egress?.revoke(info.id);
    // The leader is gone; whatever it left running in its group goes too (after a short grace).
    // A keeper has done so already: it ends last.
    if (confined?.keeper) return;
    try {
      if (signalGroup(run.pid, 'SIGTERM')) setTimeout(() => quietly(() => signalGroup(run.pid, 'SIGKILL')), LEFTOVER_GRACE_MS).unref();
    } catch (err) {
      this.options.logger.warn({ event: 'AgentGroupSignalFailed', agent: info.id, err }, 'could not signal what the agent left running');
    }
  }

  #evictEnded(): void {
    const ended = [...this.#runs.values()].filter((r) => !r.live);
    const excess = ended.length - (this.options.retainEnded ?? 200);
    for (const run of ended.slice(0, Math.max(0, excess))) {
      this.#runs.delete(run.id);
      this.#accounting.forget(run.id);
      this.#ttys.forget(run.id);
      this.#execs.forget(run.id);
      this.#deadlineReasons.delete(run.id);
      this.#profiles.delete(run.id);
    }
  }
}

/** How the sandbox confined a spawn: the launcher stays as keeper without bubblewrap; a ready pipe without a keeper is bubblewrap's. */
/** What accounting is told of the agent's tree: the sandbox's own processes, and whether everything stays under the spawned one. */
function treeShape(confined: ConfinedSpawn): { overhead: number; contained: boolean } {
  return { overhead: confined.overhead ?? 0, contained: confined.contained === true };
}

function sandboxMode(confined: ConfinedSpawn): SandboxMode {
  if (confined.keeper) return 'launcher';
  return confined.readyFd ? 'bubblewrap' : 'off';
}

/** Why an agent ended when no budget did: asked to (terminated), or on its own (exited with 0, or failed). */
function endReason(run: AgentRun, info: AgentProcess): string {
  if (run.terminating) return 'terminated';
  return info.exitCode === 0 ? 'exited' : 'failed';
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

function quietly(fn: () => unknown): void {
  try {
    fn();
  } catch {
    // Best effort: the group may belong to another user by now, or be gone.
  }
}

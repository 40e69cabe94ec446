// One agent process under the orchestrator: its record, its captured output, its exit.
import type { ChildProcess } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import type { AgentProcess, AgentState } from './orchestrator-adapter.js';
import { OutputLog } from './output-log.js';

/** How an exit is classified; the manager decides (crash-loop detection needs its history). */
export type ExitClassifier = (run: AgentRun, exit: { code: number | null; signal: NodeJS.Signals | null }) => AgentState;

/** A spawned agent process. */
export class AgentRun {
  readonly output: OutputLog;
  readonly #info: AgentProcess;
  #terminating = false;
  #began = false;
  #heldExit: (() => void) | undefined;
  readonly #exited: Promise<void>;

  constructor(
    info: Omit<AgentProcess, 'state'>,
    readonly child: ChildProcess,
    classify: ExitClassifier,
    /** `terminalOutput`: the output comes from the agent's terminal, whose reader ends it (not the pipes' close). */
    options: { maxOutputBytes?: number; clock?: () => Date; onEnd?: (run: AgentRun) => void; terminalOutput?: boolean } = {},
  ) {
    const clock = options.clock ?? (() => new Date());
    this.#info = { ...info, state: 'running', ...(options.terminalOutput ? { tty: true } : {}) };
    this.output = new OutputLog(options.maxOutputBytes, clock);
    this.#capture('stdout');
    this.#capture('stderr');
    this.#exited = new Promise((resolve) => {
      const end = (code: number | null, signal: NodeJS.Signals | null) => {
        this.#info.endedAt = clock().toISOString();
        if (code !== null) this.#info.exitCode = code;
        if (signal !== null) this.#info.signal = signal;
        this.#info.state = classify(this, { code, signal });
        options.onEnd?.(this);
        resolve();
      };
      // Listened to from the spawn on: an agent may end while the manager still waits for its
      // launcher to say it is ready, and an 'exit' nobody heard is never emitted again. Until
      // begin(), the exit is held, then seen one turn later, as any exit is after the start.
      child.once('exit', (code, signal) => {
        if (this.#began) end(code, signal);
        else this.#heldExit = () => end(code, signal);
      });
    });
    // 'close' comes after both pipes are drained (and every process holding them has gone).
    if (!options.terminalOutput) child.once('close', () => this.output.end());
  }

  /**
   * The manager has recorded the start (its maps, the audit trail): from now on the exit is
   * reported. One that came before is reported in the next turn of the event loop.
   */
  begin(): void {
    this.#began = true;
    const held = this.#heldExit;
    this.#heldExit = undefined;
    if (held) setImmediate(held);
  }

  /** The agent's id. */
  get id(): string {
    return this.#info.id;
  }

  /** The agent's name (crash loops are counted by name). */
  get name(): string {
    return this.#info.name;
  }

  /** The process id, which is also its process group id. */
  get pid(): number {
    return this.#info.pid!;
  }

  /** True until the process has exited. */
  get live(): boolean {
    return this.#info.endedAt === undefined;
  }

  /** True once termination was asked for: the exit then counts as `terminated`. */
  get terminating(): boolean {
    return this.#terminating;
  }

  /** A copy of the record, safe to hand out. */
  snapshot(): AgentProcess {
    return { ...this.#info, args: [...this.#info.args] };
  }

  /** Mark that the exit to come was asked for. */
  requestTermination(): void {
    this.#terminating = true;
  }

  /** Resolves true once the process has exited, or false after `ms`. */
  async waitExit(ms: number): Promise<boolean> {
    if (!this.live) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
      timer.unref();
    });
    const result = await Promise.race([this.#exited.then(() => true as const), timeout]);
    clearTimeout(timer);
    return result;
  }

  #capture(stream: 'stdout' | 'stderr'): void {
    // Per-stream decoders keep a multi-byte character split across reads whole.
    const decoder = new StringDecoder('utf8');
    const source = this.child[stream];
    source?.on('data', (data: Buffer) => this.output.append(stream, decoder.write(data)));
    source?.on('end', () => this.output.append(stream, decoder.end()));
  }
}

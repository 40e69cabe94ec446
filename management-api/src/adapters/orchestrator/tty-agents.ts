// The process manager's tty agents: the terminal of each spawn that asked for one, its output into the log and the screen.
import { StringDecoder } from 'node:string_decoder';
import type { Logger } from 'pino';
import { ApiError } from '../../errors.js';
import type { ConfinedSpawn } from '../../sandbox/agent-sandbox.js';
import type { AgentRun } from './agent-run.js';
import { AgentTerminal, type AgentTerminalHandle } from './agent-terminal.js';
import { AgentTty, checkTtySize } from './agent-tty.js';
import type { AgentInputHooks } from './agent-input-hooks.js';
import { EmulatorHost } from './emulator-host.js';
import { PromptWatch } from './prompt-watch.js';
import type { AgentProcess, SpawnRequest } from './orchestrator-adapter.js';

/** Longest text one input call types (POST /v1/agents/:id/input bounds it the same). */
export const MAX_INPUT_CHARS = 64 * 1024;
/** After a tty agent's exit, how long its terminal may stay open for processes it left (the keeper and bubblewrap end them first). */
const CLOSE_AFTER_EXIT_MS = 5_000;

/** A spawn on a terminal, between the sandbox's argv and the running agent. */
export interface TtySpawn {
  tty: AgentTty;
  command: string;
  args: string[];
  stdio: unknown[];
}

/** The terminals of one process manager's agents. */
export class TtyAgents {
  readonly #terminals = new Map<string, AgentTerminal>();
  readonly #watches = new Map<string, PromptWatch>();
  /** Every agent's screen, in one worker thread off the event loop. */
  readonly #emulators: EmulatorHost;

  /** `hooks`: told of prompts on quiet terminals (none: no agent's screen is looked at); `logger`: a crash of the emulators' worker. */
  constructor(
    private readonly hooks?: AgentInputHooks,
    logger?: Logger,
  ) {
    this.#emulators = new EmulatorHost(logger);
  }

  /**
   * The spawn of `confined` on a new terminal when `request.tty`, else undefined. The launcher sets
   * the terminal up (`launcher` is the sandbox's, for a box whose sandbox is off). Close its `tty` if the spawn fails.
   */
  prepare(request: SpawnRequest, confined: ConfinedSpawn, launcher: string | undefined): TtySpawn | undefined {
    if (!request.tty) return undefined;
    const size = checkTtySize(request);
    const tty = new AgentTty(size);
    try {
      // The launcher replaces stdio with the terminal before anything of the agent runs; the ready pipe stays.
      const stdio = ['ignore', 'ignore', 'ignore', ...(confined.readyFd ? ['pipe'] : [])];
      return { tty, ...tty.spawnOf(confined, launcher, stdio) };
    } catch (err) {
      tty.close();
      throw err;
    }
  }

  /** Follow a started tty agent: its output into the run's log (as stdout) and its screen. */
  follow(run: AgentRun, tty: AgentTty): void {
    const terminal = new AgentTerminal(tty, this.#emulators);
    this.#terminals.set(run.id, terminal);
    const watch = this.hooks ? new PromptWatch({ id: run.id, name: run.name }, terminal, this.hooks) : undefined;
    if (watch) {
      this.#watches.set(run.id, watch);
      terminal.onInput = () => watch.input();
    }
    const decoder = new StringDecoder('utf8');
    tty.read(
      (bytes) => {
        run.output.append('stdout', decoder.write(bytes));
        terminal.output(bytes);
        watch?.output();
      },
      () => {
        run.output.append('stdout', decoder.end());
        run.output.end();
        terminal.outputEnded();
        watch?.close();
      },
    );
  }

  /** The agent ended: viewers get its record once its output has ended; a terminal still held after a while is closed. */
  ended(record: AgentProcess): void {
    this.#watches.get(record.id)?.close();
    this.#watches.delete(record.id);
    const terminal = this.#terminals.get(record.id);
    if (!terminal) return;
    terminal.ended({ ...record });
    setTimeout(() => terminal.closeTerminal(), CLOSE_AFTER_EXIT_MS).unref();
  }

  /** The record is forgotten: so is its screen. */
  forget(id: string): void {
    this.#terminals.get(id)?.dispose();
    this.#terminals.delete(id);
  }

  /** End the emulators' worker (the manager is closing): screens are unavailable after, and a new tty agent would start another. */
  close(): Promise<void> {
    return this.#emulators.close();
  }

  /** When agent `id`'s terminal last took input (0 before any, or without a terminal). */
  lastInputAt(id: string): number {
    return this.#terminals.get(id)?.lastInputAt ?? 0;
  }

  /** The terminal of agent `run` (409 when it has none). */
  terminal(run: AgentRun): AgentTerminalHandle {
    const terminal = this.#terminals.get(run.id);
    if (!terminal) throw new ApiError('ABX_ERR_NO_TERMINAL', `agent ${run.id} has no terminal: it was started without "tty": true`);
    return terminal;
  }

  /** Type `data` into agent `run`'s terminal (409 without one, or once it ended). */
  input(run: AgentRun, data: string): void {
    if (typeof data !== 'string' || data.length > MAX_INPUT_CHARS)
      throw new ApiError('ABX_ERR_VALIDATION', `data must be a string of at most ${MAX_INPUT_CHARS} characters`);
    const terminal = this.terminal(run);
    if (!run.live || !terminal.live || !terminal.input(data)) throw new ApiError('ABX_ERR_NO_TERMINAL', `agent ${run.id} has ended: its terminal is closed`);
  }
}

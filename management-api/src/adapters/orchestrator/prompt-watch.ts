// Notices a tty agent waiting for a person: once its output has been quiet for a while, one look at the screen's last lines for a prompt.
import type { AgentInputHooks, PromptingAgent, TerminalPrompt } from './agent-input-hooks.js';
import { matchPrompt } from './prompt-patterns.js';

/** Lines of the screen a prompt is reported with. */
export const PROMPT_SCREEN_LINES = 10;

/** The end of a screen, read once the emulator has parsed everything written before (emulator-worker.ts `tailOf`). */
export interface ScreenTail {
  /** Absolute row of the cursor (scrollback included): a prompt is the same one while it stays there. */
  cursorRow: number;
  /** The cursor's line and, when it is blank, the last non-blank line above it. */
  promptLine: string;
  /** The last lines, trimmed. */
  lines: string[];
}

/** What the watch reads the screen through. */
export interface ScreenReader {
  /** Undefined when the screen is unavailable (its emulator's worker crashed): nothing to look at. */
  tail(count: number): Promise<ScreenTail | undefined>;
}

/**
 * One per tty agent. The cost is one timestamp per chunk of output; the screen is read once per
 * quiet period (a timer armed by the first chunk after a look, pushed back while output flows),
 * plus, while a prompt stands reported, once after new output to see whether it moved on.
 */
export class PromptWatch {
  #timer: NodeJS.Timeout | undefined;
  #lastOutput = 0;
  /** The prompt reported and not moved on from. */
  #raised: { line: string; row: number } | undefined;
  #recheck = false;
  #closed = false;

  constructor(
    private readonly agent: PromptingAgent,
    private readonly screen: ScreenReader,
    private readonly hooks: AgentInputHooks,
    private readonly now: () => number = Date.now,
  ) {}

  /** A chunk of output arrived (the emulator has it, perhaps not parsed yet). */
  output(): void {
    if (this.#closed) return;
    this.#lastOutput = this.now();
    if (!this.#timer) this.#arm(this.hooks.quietMs);
    // A reported prompt the agent writes past is withdrawn at once, not at the next quiet period.
    if (this.#raised && !this.#recheck) {
      this.#recheck = true;
      void this.#read().then((tail) => {
        this.#recheck = false;
        if (tail && this.#raised && !this.#same(tail)) this.#movedOn('output');
      });
    }
  }

  /** Someone typed into the terminal: a reported prompt is theirs to answer now. */
  input(): void {
    if (this.#raised) this.#movedOn('input');
  }

  /** The terminal is gone: no more looks. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(ms: number): void {
    this.#timer = setTimeout(() => this.#quiet(), ms);
    this.#timer.unref();
  }

  #quiet(): void {
    const since = this.now() - this.#lastOutput;
    if (since < this.hooks.quietMs) {
      this.#arm(this.hooks.quietMs - since);
      return;
    }
    // Not armed again until the next output: one look per quiet period, so a prompt is reported once.
    this.#timer = undefined;
    void this.#read().then((tail) => {
      if (!tail || this.#lastOutput > this.now() - this.hooks.quietMs) return;
      const match = matchPrompt(tail.promptLine);
      if (this.#raised && match && this.#same(tail)) return;
      if (this.#raised) this.#movedOn('output');
      if (!match) return;
      this.#raised = { line: tail.promptLine, row: tail.cursorRow };
      const prompt: TerminalPrompt = { line: match.line, pattern: match.pattern, lines: tail.lines };
      this.hooks.prompted(this.agent, prompt);
    });
  }

  #same(tail: ScreenTail): boolean {
    return tail.promptLine === this.#raised?.line && tail.cursorRow === this.#raised.row;
  }

  #movedOn(why: 'output' | 'input'): void {
    this.#raised = undefined;
    this.hooks.movedOn(this.agent.id, why);
  }

  async #read(): Promise<ScreenTail | undefined> {
    if (this.#closed) return undefined;
    const tail = await this.screen.tail(PROMPT_SCREEN_LINES);
    return this.#closed ? undefined : tail;
  }
}

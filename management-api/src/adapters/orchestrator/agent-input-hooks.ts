// What the local orchestrator tells the box about agents waiting for a person: a prompt on a quiet terminal, a prompt left behind, an agent's end.

/** How long a tty agent's output must have been quiet before its screen is looked at for a prompt. */
export const PROMPT_QUIET_MS = 1_500;

/** A prompt seen on an agent's screen. */
export interface TerminalPrompt {
  /** The line that matched a pattern of prompt-patterns.ts (trailing blanks removed). */
  line: string;
  /** Which pattern it matched. */
  pattern: string;
  /** The last lines of the screen, up to the cursor or the last written line, trimmed. */
  lines: string[];
}

/** An agent as the hooks name it. */
export interface PromptingAgent {
  id: string;
  name: string;
}

/** The listener's side: each call is one change; none may throw. */
export interface AgentInputListener {
  /** Agent `agent`'s terminal has been quiet for `quietMs` after a prompt (once per prompt and quiet period). */
  prompted(agent: PromptingAgent, prompt: TerminalPrompt): void;
  /** The prompt last reported for `agentId` is gone: the agent wrote on past it, or someone typed into its terminal. */
  movedOn(agentId: string, why: 'output' | 'input'): void;
  /** Agent `agentId` has ended (every agent, with a terminal or not). */
  ended(agentId: string): void;
}

/** What the orchestrator's context carries (`agentInput`). */
export interface AgentInputHooks extends AgentInputListener {
  readonly quietMs: number;
}

/**
 * The hooks as the resolver hands them to the orchestrator, before the input requests' queue
 * exists (it is built later, above the adapters): calls are passed to the listener once one is
 * set, and dropped before (no agent runs before the app has started).
 */
export class AgentInputRelay implements AgentInputHooks {
  #listener: AgentInputListener | undefined;

  constructor(readonly quietMs: number = PROMPT_QUIET_MS) {}

  /** Pass every later call to `listener`; returns the unlisten. */
  listen(listener: AgentInputListener): () => void {
    this.#listener = listener;
    return () => {
      if (this.#listener === listener) this.#listener = undefined;
    };
  }

  prompted(agent: PromptingAgent, prompt: TerminalPrompt): void {
    this.#listener?.prompted(agent, prompt);
  }

  movedOn(agentId: string, why: 'output' | 'input'): void {
    this.#listener?.movedOn(agentId, why);
  }

  ended(agentId: string): void {
    this.#listener?.ended(agentId);
  }
}

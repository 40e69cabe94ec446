// An input request: an agent waiting for a person, as the API lists it, and the bounds on what it holds.

/** Why the box thinks the agent waits: a prompt on its quiet terminal, or the agent asked through the API. */
export type InputReason = 'prompt' | 'explicit';

/** `open` until answered, withdrawn (the agent moved on, someone typed into its terminal, the agent took it back) or ended (the agent, or the API, ended). */
export type InputState = 'open' | 'answered' | 'withdrawn' | 'ended';

/** Why a request stopped being open, beside its state. */
export type ClosedWhy = 'answer' | 'output' | 'input' | 'agent' | 'agent-ended' | 'api-closed';

/** One input request. The answer's text is never part of it (it may be a password): only its length. */
export interface InputRequest {
  /** `inp_` and 18 hex digits. */
  id: string;
  agentId: string;
  /** The agent's name. */
  agent: string;
  reason: InputReason;
  /** The matched prompt line, or the agent's own text. */
  prompt: string;
  /** The prompt pattern that matched (prompt-patterns.ts), for a prompt. */
  pattern?: string;
  /** The last lines of the agent's screen when it was raised (a prompt; empty for an explicit request). */
  lines: string[];
  created: string;
  state: InputState;
  /** Once it is no longer open. */
  closed?: { at: string; why: ClosedWhy; answer?: { length: number; enter: boolean; by: Record<string, unknown> } };
}

/** Open requests in all; a request beyond it is refused (explicit) or not raised (a prompt, counted). */
export const MAX_OPEN_REQUESTS = 256;
/** Open requests of one agent. */
export const MAX_OPEN_PER_AGENT = 4;
/** Characters of an explicit request's prompt. */
export const MAX_PROMPT_CHARS = 2_000;
/** Characters of an answer. */
export const MAX_ANSWER_CHARS = 4_096;
/** Longest a GET of one's own request waits for its answer (`wait`, seconds). */
export const MAX_WAIT_SEC = 60;

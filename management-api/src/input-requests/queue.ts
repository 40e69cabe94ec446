// The input requests queue: agents waiting for a person, raised by the prompt watch or by the agent itself, until answered, withdrawn or ended; bounded in all and per agent.
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentInputListener, PromptingAgent, TerminalPrompt } from '../adapters/orchestrator/agent-input-hooks.js';
import { ApiError } from '../errors.js';
import { AUDIT_KINDS } from '../observability/audit-trail.js';
import { MAX_OPEN_PER_AGENT, MAX_OPEN_REQUESTS, type ClosedWhy, type InputReason, type InputRequest } from './input-request.js';
import type { InputRequestMetrics } from './metrics.js';

/** The audit events of the queue. */
export const INPUT_EVENT_KINDS = {
  requested: AUDIT_KINDS.inputRequested,
  answered: AUDIT_KINDS.inputAnswered,
  withdrawn: AUDIT_KINDS.inputWithdrawn,
} as const;

/** How the queue is built. */
export interface InputQueueOptions {
  metrics: InputRequestMetrics;
  logger: Logger;
  /** Appends an audit event (never rejects). */
  record: (kind: (typeof INPUT_EVENT_KINDS)[keyof typeof INPUT_EVENT_KINDS], data: Record<string, unknown>) => Promise<unknown>;
  /** Types into a tty agent's terminal (the orchestrator's input: 409 ABX_ERR_NO_TERMINAL once it ended). */
  type: (agentId: string, data: string) => Promise<void>;
  maxOpen?: number;
  maxPerAgent?: number;
  now?: () => number;
}

/** What a change tells a listener (the dashboard). */
export interface InputChange {
  type: 'requested' | 'closed';
  request: InputRequest;
}

interface Held {
  request: InputRequest;
  /** An explicit request's answer, for the agent's own GET only. */
  text?: string;
  /** Calls waiting for it to close (long polls). */
  waiters: Set<() => void>;
}

/** Closed requests kept for GET (the oldest go first). */
const KEEP_CLOSED = 200;

export class InputRequestQueue implements AgentInputListener {
  readonly #open = new Map<string, Held>();
  readonly #closed = new Map<string, Held>();
  readonly #listeners = new Set<(change: InputChange) => void>();
  readonly #now: () => number;
  readonly #maxOpen: number;
  readonly #maxPerAgent: number;
  #stopped = false;

  constructor(private readonly options: InputQueueOptions) {
    this.#now = options.now ?? Date.now;
    this.#maxOpen = options.maxOpen ?? MAX_OPEN_REQUESTS;
    this.#maxPerAgent = options.maxPerAgent ?? MAX_OPEN_PER_AGENT;
  }

  // The prompt watch's calls (through the orchestrator's hooks): never throw.

  prompted(agent: PromptingAgent, prompt: TerminalPrompt): void {
    // One open prompt per agent: the watch says a prompt moved on before it reports the next, but be sure.
    for (const held of this.#ofAgent(agent.id, 'prompt')) this.#close(held, 'withdrawn', 'output');
    const refusal = this.#capped(agent.id);
    if (refusal) {
      this.options.metrics.requests.inc({ reason: 'prompt', outcome: 'refused' });
      this.options.logger.warn(
        { event: 'InputRequestRefused', agent: agent.id, name: agent.name, reason: 'prompt' },
        `prompt of ${agent.name} not raised: ${refusal}`,
      );
      return;
    }
    this.#add({ agent, reason: 'prompt', prompt: prompt.line, pattern: prompt.pattern, lines: prompt.lines });
  }

  movedOn(agentId: string, why: 'output' | 'input'): void {
    for (const held of this.#ofAgent(agentId, 'prompt')) this.#close(held, 'withdrawn', why);
  }

  ended(agentId: string): void {
    for (const held of this.#ofAgent(agentId)) this.#close(held, 'ended', 'agent-ended');
  }

  /** An agent's own request (POST /v1/agents/{id}/input-requests); 429 ABX_ERR_INPUT_REQUESTS_FULL beyond a cap. */
  raise(agent: PromptingAgent, prompt: string): InputRequest {
    const refusal = this.#stopped ? 'the API is stopping' : this.#capped(agent.id);
    if (refusal) {
      this.options.metrics.requests.inc({ reason: 'explicit', outcome: 'refused' });
      throw new ApiError('ABX_ERR_INPUT_REQUESTS_FULL', `input request refused: ${refusal}`);
    }
    return this.#add({ agent, reason: 'explicit', prompt, lines: [] }).request;
  }

  /**
   * Answer open request `id`: a prompt's text (and Enter, `\r`) is typed into the agent's terminal;
   * an explicit request's text is kept for the agent's own GET. 409 ABX_ERR_INPUT_REQUEST_CLOSED once closed.
   */
  async answer(id: string, answer: { text: string; enter: boolean }, by: Record<string, unknown>): Promise<InputRequest> {
    const held = this.#openOne(id);
    const meta = { length: answer.text.length, enter: answer.enter, by };
    if (held.request.reason === 'explicit') {
      held.text = answer.text;
      return this.#close(held, 'answered', 'answer', meta);
    }
    // Closed before typing: the typing is input to the terminal, which would otherwise withdraw it.
    const request = this.#close(held, 'answered', 'answer', meta, { recordLater: true });
    try {
      await this.options.type(held.request.agentId, answer.text + (answer.enter ? '\r' : ''));
    } catch (err) {
      // The agent ended between the look and the typing: said as what happened.
      held.request = { ...request, state: 'ended', closed: { at: request.closed!.at, why: 'agent-ended' } };
      this.#after(held, 'ended');
      throw err;
    }
    this.#after(held, 'answered');
    return held.request;
  }

  /** The agent takes back its own open request (DELETE); 409 once closed. */
  withdraw(id: string, agentId: string): InputRequest {
    const held = this.#own(id, agentId);
    if (held.request.state !== 'open') throw closedError(held.request);
    return this.#close(held, 'withdrawn', 'agent');
  }

  /** Every open request, oldest first. */
  list(): InputRequest[] {
    return [...this.#open.values()].map((h) => h.request);
  }

  /** An open or recently closed request; 404 ABX_ERR_INPUT_REQUEST_NOT_FOUND otherwise. */
  get(id: string): InputRequest {
    return this.#find(id).request;
  }

  /**
   * Agent `agentId`'s own request `id`, waiting up to `waitMs` while it is open; an explicit
   * request's answer text with it. Another agent's request is not found (404), as an unknown one.
   */
  async own(id: string, agentId: string, waitMs: number, signal?: AbortSignal): Promise<InputRequest & { answer?: { text: string } }> {
    const held = this.#own(id, agentId);
    if (held.request.state === 'open' && waitMs > 0 && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          held.waiters.delete(done);
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        held.waiters.add(done);
        signal?.addEventListener('abort', done);
      });
    }
    return held.text !== undefined ? { ...held.request, answer: { text: held.text } } : held.request;
  }

  /** Be told of every new and every closed request; returns the unsubscribe. */
  subscribe(listener: (change: InputChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The API is stopping: every open request ends, waiting calls answer, no new explicit request. */
  close(): void {
    this.#stopped = true;
    for (const held of [...this.#open.values()]) this.#close(held, 'ended', 'api-closed');
  }

  #add(what: { agent: PromptingAgent; reason: InputReason; prompt: string; pattern?: string; lines: string[] }): Held {
    const request: InputRequest = {
      id: `inp_${randomBytes(9).toString('hex')}`,
      agentId: what.agent.id,
      agent: what.agent.name,
      reason: what.reason,
      prompt: what.prompt,
      ...(what.pattern ? { pattern: what.pattern } : {}),
      lines: what.lines,
      created: new Date(this.#now()).toISOString(),
      state: 'open',
    };
    const held: Held = { request, waiters: new Set() };
    this.#open.set(request.id, held);
    this.#gauge();
    this.options.metrics.requests.inc({ reason: request.reason, outcome: 'raised' });
    this.options.logger.info(
      { event: 'InputRequested', request: request.id, agent: request.agentId, name: request.agent, reason: request.reason, pattern: request.pattern },
      `agent ${request.agent} waits for input (${request.reason}): ${request.prompt.slice(0, 200)}`,
    );
    void this.options.record(INPUT_EVENT_KINDS.requested, {
      request: request.id,
      agent: request.agentId,
      name: request.agent,
      reason: request.reason,
      prompt: request.prompt,
      ...(request.pattern ? { pattern: request.pattern } : {}),
    });
    this.#emit({ type: 'requested', request });
    return held;
  }

  #close(
    held: Held,
    state: 'answered' | 'withdrawn' | 'ended',
    why: ClosedWhy,
    answer?: NonNullable<InputRequest['closed']>['answer'],
    options: { recordLater?: boolean } = {},
  ): InputRequest {
    this.#open.delete(held.request.id);
    held.request = { ...held.request, state, closed: { at: new Date(this.#now()).toISOString(), why, ...(answer ? { answer } : {}) } };
    this.#closed.set(held.request.id, held);
    if (this.#closed.size > KEEP_CLOSED) this.#closed.delete(this.#closed.keys().next().value!);
    this.#gauge();
    for (const wake of [...held.waiters]) wake();
    if (!options.recordLater) this.#after(held, state);
    return held.request;
  }

  /** The count, the log line, the event and the listeners of a request that closed. */
  #after(held: Held, state: 'answered' | 'withdrawn' | 'ended'): void {
    const r = held.request;
    const closed = r.closed!;
    this.options.metrics.requests.inc({ reason: r.reason, outcome: state });
    // Never the answer's text: it may be a password. Its length and who gave it.
    const data = {
      request: r.id,
      agent: r.agentId,
      name: r.agent,
      reason: r.reason,
      state,
      why: closed.why,
      ...(closed.answer ? { length: closed.answer.length, enter: closed.answer.enter, actor: closed.answer.by } : {}),
    };
    this.options.logger.info(
      { event: state === 'answered' ? 'InputAnswered' : 'InputWithdrawn', ...data },
      `input request ${r.id} of ${r.agent} ${state} (${closed.why})`,
    );
    void this.options.record(state === 'answered' ? INPUT_EVENT_KINDS.answered : INPUT_EVENT_KINDS.withdrawn, data);
    this.#emit({ type: 'closed', request: r });
  }

  #capped(agentId: string): string | undefined {
    if (this.#open.size >= this.#maxOpen) return `${this.#open.size} input requests are open on this box (at most ${this.#maxOpen})`;
    const mine = this.#ofAgent(agentId).length;
    if (mine >= this.#maxPerAgent) return `agent ${agentId} has ${mine} input requests open (at most ${this.#maxPerAgent})`;
    return undefined;
  }

  #ofAgent(agentId: string, reason?: InputReason): Held[] {
    return [...this.#open.values()].filter((h) => h.request.agentId === agentId && (reason === undefined || h.request.reason === reason));
  }

  #find(id: string): Held {
    const held = this.#open.get(id) ?? this.#closed.get(id);
    if (!held) throw new ApiError('ABX_ERR_INPUT_REQUEST_NOT_FOUND', `no input request ${id} (closed ones are kept for the last ${KEEP_CLOSED})`);
    return held;
  }

  #own(id: string, agentId: string): Held {
    const held = this.#open.get(id) ?? this.#closed.get(id);
    if (!held || held.request.agentId !== agentId)
      throw new ApiError('ABX_ERR_INPUT_REQUEST_NOT_FOUND', `agent ${agentId} has no input request ${id} (closed ones are kept for the last ${KEEP_CLOSED})`);
    return held;
  }

  #openOne(id: string): Held {
    const held = this.#find(id);
    if (held.request.state !== 'open') throw closedError(held.request);
    return held;
  }

  #gauge(): void {
    let prompt = 0;
    for (const h of this.#open.values()) if (h.request.reason === 'prompt') prompt++;
    this.options.metrics.open.set({ reason: 'prompt' }, prompt);
    this.options.metrics.open.set({ reason: 'explicit' }, this.#open.size - prompt);
  }

  #emit(change: InputChange): void {
    for (const l of this.#listeners) l(change);
  }
}

/** The 409 for an answer to a request that is no longer open, saying what became of it. */
function closedError(r: InputRequest): ApiError {
  const how: Record<ClosedWhy, string> = {
    answer: 'it was answered already',
    output: 'the agent wrote on past its prompt',
    input: 'someone typed into its terminal',
    agent: 'the agent took it back',
    'agent-ended': 'the agent has ended',
    'api-closed': 'the API stopped',
  };
  return new ApiError('ABX_ERR_INPUT_REQUEST_CLOSED', `input request ${r.id} is ${r.state}: ${how[r.closed?.why ?? 'answer']}`);
}

// Watches the orchestrator for agent lifecycle changes (spawn, exit, crash loop) by listing its
// agents on a timer and on demand; works alike for every orchestrator implementation.
import type { Logger } from 'pino';
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { agentEventType, type AgentEventType } from './agent-event.js';

/** Lists the agents; the resolver's orchestrator slot in the box. */
export type ListAgents = () => Promise<AgentProcess[]>;

/**
 * Reports each agent once per event type: when first seen (spawn; and its end as well if it has
 * already ended) and whenever its state moves to another type. The first listing only records
 * what exists, so a restarted API does not announce agents again.
 */
export class AgentWatcher {
  readonly #seen = new Map<string, AgentEventType>();
  #baseline = false;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(private readonly deps: { list: ListAgents; onChange: (agent: AgentProcess) => void; logger: Logger; intervalMs: number }) {}

  /** Take the baseline and poll every `intervalMs`. */
  start(): void {
    void this.poll();
    this.#timer = setInterval(() => void this.poll(), this.deps.intervalMs).unref();
  }

  /** List now (after a spawn, say); calls made meanwhile coalesce into one more listing. */
  poll(): Promise<void> {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = this.#pollOnce().finally(() => {
      this.#running = undefined;
      if (this.#again && !this.#closed) {
        this.#again = false;
        void this.poll();
      }
    });
    return this.#running;
  }

  /** Stop polling. */
  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
  }

  async #pollOnce(): Promise<void> {
    let agents: AgentProcess[];
    try {
      agents = await this.deps.list();
    } catch (err) {
      // The orchestrator off or degraded: its readiness says so; try again next time.
      this.deps.logger.debug({ event: 'AgentWatchFailed', err }, 'could not list agents');
      return;
    }
    if (this.#closed) return;
    const baseline = !this.#baseline;
    this.#baseline = true;
    for (const agent of agents) {
      const type = agentEventType(agent.state);
      const before = this.#seen.get(agent.id);
      if (before === type) continue;
      this.#seen.set(agent.id, type);
      if (baseline) continue;
      // Ended before we saw it start: announce the start first.
      if (before === undefined && type !== 'agent.spawn') {
        const { endedAt: _endedAt, exitCode: _exitCode, signal: _signal, reason: _reason, ...started } = agent;
        this.deps.onChange({ ...started, state: 'running' });
      }
      this.deps.onChange(agent);
    }
    // Forget agents the orchestrator no longer lists (its retention is bounded).
    if (this.#seen.size > agents.length) {
      const listed = new Set(agents.map((a) => a.id));
      for (const id of this.#seen.keys()) if (!listed.has(id)) this.#seen.delete(id);
    }
  }
}

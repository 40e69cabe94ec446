// How many connections each agent holds open at the egress proxy at once: one agent's flood must not take the proxy from the others.
import type { Socket } from 'node:net';

/** Connections one agent may hold open at the proxy at once (tunnels and kept-alive plain HTTP). */
export const MAX_CONNECTIONS_PER_AGENT = 128;
/**
 * Connections the proxy holds at once, authenticated or not: the ceiling on its descriptors (a
 * tunnel holds two). Those that never send a request are closed after HEADERS_TIMEOUT_MS.
 */
export const MAX_CONNECTIONS = 2048;
/** How long a connection may take to send its first request's head. */
export const HEADERS_TIMEOUT_MS = 10_000;

/** Counts the connections each agent holds; a connection counts once, from its first admitted request to its close. */
export class AgentConnections {
  readonly #open = new Map<string, number>();
  readonly #counted = new WeakSet<Socket>();

  constructor(private readonly max = MAX_CONNECTIONS_PER_AGENT) {}

  /** Count `socket` for `agent`; false (and not counted) when the agent holds its maximum already. */
  admit(agent: string, socket: Socket): boolean {
    if (this.#counted.has(socket)) return true;
    const open = this.#open.get(agent) ?? 0;
    if (open >= this.max) return false;
    this.#open.set(agent, open + 1);
    this.#counted.add(socket);
    socket.once('close', () => {
      const left = (this.#open.get(agent) ?? 1) - 1;
      if (left > 0) this.#open.set(agent, left);
      else this.#open.delete(agent);
    });
    return true;
  }

  /** Connections `agent` holds now. */
  held(agent: string): number {
    return this.#open.get(agent) ?? 0;
  }
}

// Per-agent API tokens: issued at spawn, held only as sha256 digests in memory, revoked when the agent ends.
import { createHash, randomBytes } from 'node:crypto';
import type { Autonomy } from '../policy/policy-types.js';

/** Bytes of randomness in a token (encoded base64url, prefixed `abx_agent_`). */
export const TOKEN_BYTES = 32;

/** Beads an agent created that are remembered as its own; past this the oldest are forgotten. */
export const MAX_CREATED_BEADS = 10_000;

/** Who a request carrying an agent token is. */
export interface AgentPrincipal {
  /** The orchestrator's agent id (`agt_…`). */
  readonly id: string;
  /** The agent's name: its claimant for beads and the key of its memory namespaces. */
  readonly name: string;
  /** Ids of beads this agent created (insertion order, bounded by {@link MAX_CREATED_BEADS}). */
  readonly createdBeads: Set<string>;
  /** How it meets a [policy] ask, as its spawn set it (the policy's default when absent). */
  readonly autonomy?: Autonomy;
  /** The providers its profile lets it call through the broker; every brokered provider when absent (an ad-hoc spawn). */
  readonly providers?: readonly string[];
}

const digest = (token: string): string => createHash('sha256').update(token, 'utf8').digest('base64url');

/**
 * The live agent tokens of one API process. Only digests are kept: a token cannot be read back
 * from memory, logs or a heap dump, and a lookup hashes the presented token first, so its timing
 * says nothing about how much of a stored token matched.
 *
 * Tokens do not survive a restart of the API, and need not: the local orchestrator kills the
 * agents a previous API process left behind (its pid records), so no agent outlives its token.
 */
export class AgentTokens {
  readonly #byDigest = new Map<string, AgentPrincipal>();
  readonly #digestById = new Map<string, string>();

  /** Issue a fresh token for agent `id` (replacing any earlier one of the same id). */
  issue(agent: { id: string; name: string; autonomy?: Autonomy; providers?: readonly string[] }): string {
    this.revoke(agent.id);
    const token = `abx_agent_${randomBytes(TOKEN_BYTES).toString('base64url')}`;
    const d = digest(token);
    this.#byDigest.set(d, {
      id: agent.id,
      name: agent.name,
      createdBeads: new Set(),
      ...(agent.autonomy ? { autonomy: agent.autonomy } : {}),
      ...(agent.providers ? { providers: [...agent.providers] } : {}),
    });
    this.#digestById.set(agent.id, d);
    return token;
  }

  /** The agent holding `token`, or undefined for an unknown or revoked token. */
  verify(token: string): AgentPrincipal | undefined {
    if (!token.startsWith('abx_agent_')) return undefined;
    return this.#byDigest.get(digest(token));
  }

  /** Revoke agent `id`'s token; true when there was one. */
  revoke(id: string): boolean {
    const d = this.#digestById.get(id);
    if (d === undefined) return false;
    this.#digestById.delete(id);
    this.#byDigest.delete(d);
    return true;
  }

  /** How many tokens are live. */
  get size(): number {
    return this.#byDigest.size;
  }
}

/** Remember that `agent` created bead `id` (the oldest is forgotten past the bound). */
export function rememberCreatedBead(agent: AgentPrincipal, id: string): void {
  agent.createdBeads.add(id);
  if (agent.createdBeads.size > MAX_CREATED_BEADS) {
    const oldest = agent.createdBeads.values().next().value;
    if (oldest !== undefined) agent.createdBeads.delete(oldest);
  }
}

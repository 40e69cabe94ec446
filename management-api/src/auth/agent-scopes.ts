// The agent scope by route family: its own beads, its memory namespaces, event appends as itself, its own record.
import type { FastifyRequest } from 'fastify';
import type {} from '../app-state.js'; // the type of `app.agentbox` (types only: the app's state sits above auth)
import { AdapterNotFoundError } from '../adapter-errors.js';
import type { Bead } from '../adapters/beads/beads-adapter.js';
import { rememberCreatedBead, type AgentPrincipal } from '../credentials/agent-tokens.js';
import { outsideScope, type AgentPolicy } from './agent-access.js';

/** The memory namespace of agents named `name`; `<it>.<anything>` belongs to them too. */
export const agentNamespace = (name: string): string => `agent.${name}`;

/** The event source an agent's appends carry. */
export const agentEventSource = (agent: AgentPrincipal): string => `agent:${agent.id}`;

/**
 * An agent's beads: those it created (remembered while its token lives) and those claimed by its
 * name, whoever claimed them — which is how an operator assigns a bead to an agent.
 */
export function ownsBead(agent: AgentPrincipal, bead: Pick<Bead, 'id' | 'claimedBy'>): boolean {
  return agent.createdBeads.has(bead.id) || bead.claimedBy === agent.name;
}

/**
 * True for `agent.<name>` and `agent.<name>.<more>`. Names hold no dot (spawn-request.ts), so the
 * segment after `agent.` names one agent alone; a dotted name, should one reach here, owns nothing
 * rather than the namespaces of a name it is a prefix of.
 */
export function ownsNamespace(agent: AgentPrincipal, namespace: string): boolean {
  if (agent.name.includes('.')) return false;
  const own = agentNamespace(agent.name);
  return namespace === own || namespace.startsWith(`${own}.`);
}

// Unknown and foreign beads are refused alike, so an agent cannot probe which ids exist.
async function ownBead(request: FastifyRequest, agent: AgentPrincipal, id: string): Promise<void> {
  const bead = await request.server.agentbox.resolver
    .slot('beads')
    .get(id)
    .catch((err: unknown) => {
      if (err instanceof AdapterNotFoundError) return undefined;
      throw err;
    });
  if (!bead || !ownsBead(agent, bead)) throw outsideScope(`bead ${JSON.stringify(id)}`);
}

const params = (request: FastifyRequest): Record<string, string> => request.params as Record<string, string>;
const body = (request: FastifyRequest): Record<string, unknown> => (request.body ?? {}) as Record<string, unknown>;

/** The agent policies, one per kind of route. */
export const agentScopes = {
  /** POST /v1/beads: under its own epic, depending on its own beads; the new bead becomes its own. */
  beadCreate: {
    async admit(request, agent) {
      const { parentId, dependsOn } = body(request) as { parentId?: string; dependsOn?: string[] };
      for (const id of [...(parentId ? [parentId] : []), ...(dependsOn ?? [])]) await ownBead(request, agent, id);
    },
    reply(payload, agent) {
      const bead = (payload as { bead?: { id?: unknown } } | undefined)?.bead;
      if (typeof bead?.id === 'string') rememberCreatedBead(agent, bead.id);
      return payload;
    },
  },
  /** Lists: only its own beads (a page may hold fewer items than asked; follow nextCursor). */
  beadList: {
    reply(payload, agent) {
      const page = payload as { items?: unknown } | undefined;
      if (!page || !Array.isArray(page.items)) return payload;
      return { ...page, items: (page.items as Bead[]).filter((b) => ownsBead(agent, b)) };
    },
  },
  /** One of its own beads, by `:id`. */
  beadOwn: {
    admit: (request, agent) => ownBead(request, agent, params(request)['id'] ?? ''),
  },
  /** A claim of its own bead, in its own name. */
  beadClaim: {
    async admit(request, agent) {
      const claimant = body(request)['claimant'];
      if (claimant !== agent.name) throw outsideScope(`claiming as ${JSON.stringify(claimant)} (an agent claims as its name, ${JSON.stringify(agent.name)})`);
      await ownBead(request, agent, params(request)['id'] ?? '');
    },
  },
  /** Its own memory namespaces, by `:namespace`. */
  memoryOwn: {
    admit(request, agent) {
      const namespace = params(request)['namespace'] ?? '';
      if (!ownsNamespace(agent, namespace))
        throw outsideScope(
          `memory namespace ${JSON.stringify(namespace)} (this agent's are ${agentNamespace(agent.name)} and ${agentNamespace(agent.name)}.*)`,
        );
    },
  },
  /** Appending an event as itself: the source is set to agent:<id>, and no other source is accepted. */
  eventAppend: {
    admit(request, agent) {
      const b = body(request);
      const own = agentEventSource(agent);
      if (b['source'] !== undefined && b['source'] !== own)
        throw outsideScope(`appending as source ${JSON.stringify(b['source'])} (an agent appends as ${own})`);
      b['source'] = own;
    },
  },
  /** Its own record, output, workspace files and input requests, by `:id`. */
  agentSelf: {
    admit(request, agent) {
      const id = params(request)['id'];
      if (id !== agent.id) throw outsideScope(`agent ${JSON.stringify(id)}`);
    },
  },
} satisfies Record<string, AgentPolicy>;

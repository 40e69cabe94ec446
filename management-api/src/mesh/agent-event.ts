// The Nostr form of the box's agent events: one kind, NIP-32 labels for the event type, and a
// JSON content that carries states and ids only — never commands, arguments, titles or notes.
import type { EventTemplate } from 'nostr-tools/pure';
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import type { Bead } from '../adapters/beads/beads-adapter.js';

/** The event kind of every agent event (regular range, stored by relays; assigned by no NIP). */
export const AGENT_EVENT_KIND = 4750;

/** The NIP-32 label namespace of the event types. */
export const LABEL_NAMESPACE = 'dev.agentbox';

/** What happened. */
export type AgentEventType = 'agent.spawn' | 'agent.exit' | 'agent.crash-loop' | 'bead.open' | 'bead.claimed' | 'bead.closed';

/** The box an event is about. */
export interface EventOrigin {
  /** `agentbox.name`. */
  box: string;
  /** sha256 of the normalized manifest. */
  manifestSha256: string;
}

/**
 * The unsigned event: tags `["t","agentbox"]`, `["L","dev.agentbox"]`, `["l",<type>,"dev.agentbox"]`
 * (single letters, so relays index them), `["box",<name>]`, `["manifest",<sha256>]`, then the
 * subject (`["agent",<id>,<name>]` or `["bead",<id>]`); content is JSON of the subject's state.
 */
function template(type: AgentEventType, origin: EventOrigin, subject: string[], content: Record<string, unknown>, at: Date): EventTemplate {
  return {
    kind: AGENT_EVENT_KIND,
    created_at: Math.floor(at.getTime() / 1000),
    tags: [['t', 'agentbox'], ['L', LABEL_NAMESPACE], ['l', type, LABEL_NAMESPACE], ['box', origin.box], ['manifest', origin.manifestSha256], subject],
    content: JSON.stringify({ type, ...content }),
  };
}

/** The event type of an agent in `state`, as seen for the first time or after a change. */
export function agentEventType(state: AgentProcess['state']): AgentEventType {
  if (state === 'crash-loop') return 'agent.crash-loop';
  if (state === 'starting' || state === 'running') return 'agent.spawn';
  return 'agent.exit';
}

/** An agent lifecycle event: spawn, exit (exited, failed or terminated) or crash loop. */
export function agentEvent(agent: AgentProcess, origin: EventOrigin, at: Date): EventTemplate {
  const type = agentEventType(agent.state);
  const state: Record<string, unknown> = { id: agent.id, name: agent.name, state: agent.state, startedAt: agent.startedAt };
  if (agent.endedAt !== undefined) state['endedAt'] = agent.endedAt;
  if (agent.exitCode !== undefined) state['exitCode'] = agent.exitCode;
  if (agent.signal !== undefined) state['signal'] = agent.signal;
  // A state, not a figure: why the orchestrator ended it (limit:memory, …).
  if (agent.reason !== undefined) state['reason'] = agent.reason;
  return template(type, origin, ['agent', agent.id, agent.name], { agent: state }, at);
}

/** A bead transition: created (open), claimed or closed (with its outcome). */
export function beadEvent(bead: Bead, origin: EventOrigin, at: Date): EventTemplate {
  const state: Record<string, unknown> = { id: bead.id, kind: bead.kind, status: bead.status, updatedAt: bead.updatedAt };
  if (bead.parentId !== undefined) state['parentId'] = bead.parentId;
  if (bead.claimedBy !== undefined) state['claimedBy'] = bead.claimedBy;
  if (bead.outcome !== undefined) state['outcome'] = bead.outcome;
  return template(`bead.${bead.status}`, origin, ['bead', bead.id], { bead: state }, at);
}

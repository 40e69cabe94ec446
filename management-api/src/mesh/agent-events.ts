// Agent events as signed Nostr events: turned on by sovereign_mesh.publish_agent_events, fed by
// the agent watcher and the bead routes, published to sovereign_mesh.relays and the embedded relay.
import type { Logger } from 'pino';
import type { Bead } from '../adapters/beads/beads-adapter.js';
import type { ApprovalRequest } from '../approvals/approval-request.js';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { ApiMetrics } from '../api-metrics.js';
import { agentEvent, beadEvent, type EventOrigin } from './agent-event.js';
import { approvalRequestEvent } from './approval-event.js';
import { AgentWatcher, type ListAgents } from './agent-watcher.js';
import type { BoxIdentity } from './identity.js';
import { DEFAULT_LINK_TIMING, type RelayLinkTiming } from './relay-link.js';
import { RelayPublisher, type RelayStatus } from './relay-publisher.js';
import { embeddedRelayUrl } from './relay-config.js';

/** Timings of publishing; tests shorten them. */
export interface AgentEventTiming extends RelayLinkTiming {
  /** How often the orchestrator's agents are listed. */
  agentPollMs: number;
}

/** Defaults: the link defaults, agents listed every second. */
export const DEFAULT_AGENT_EVENT_TIMING: AgentEventTiming = { ...DEFAULT_LINK_TIMING, agentPollMs: 1_000 };

/** What the rest of the API sees; every method is a no-op while publishing is off. */
export interface AgentEvents {
  /** A bead was created, claimed or closed through the API. */
  beadChanged(bead: Bead): void;
  /** An agent was just spawned or terminated: look now rather than at the next poll. */
  agentsChanged(): void;
  /** A request now waits for an operator: published so approvers watching the relays see it (`subject`: its censored arguments). */
  approvalRequested(request: ApprovalRequest, subject: Record<string, unknown>): void;
  /** Relays and which are reachable; undefined while publishing is off (no relay is required). */
  relayStatus(): RelayStatus | undefined;
  /** Call `listener` when relay reachability changes. */
  onRelayChange(listener: () => void): void;
  close(): void;
}

const OFF: AgentEvents = {
  beadChanged: () => undefined,
  agentsChanged: () => undefined,
  approvalRequested: () => undefined,
  relayStatus: () => undefined,
  onRelayChange: () => undefined,
  close: () => undefined,
};

/**
 * Approval requests only, for a box with relays that does not publish agent events: the relays are
 * connected at the first request (a box that never asks opens no connection), and they are no part
 * of readiness (relayStatus stays undefined), since nothing but a waiting approver depends on them.
 */
function approvalsOnly(connect: () => RelayPublisher, origin: EventOrigin, clock: () => Date): AgentEvents {
  let publisher: RelayPublisher | undefined;
  return {
    ...OFF,
    approvalRequested(request, subject) {
      if (!publisher) {
        publisher = connect();
        publisher.start();
      }
      publisher.publish(approvalRequestEvent(request, subject, origin, clock()));
    },
    close: () => publisher?.close(),
  };
}

/** Options of {@link startAgentEvents}. */
export interface AgentEventOptions {
  manifest: NormalizedManifest;
  manifestSha256: string;
  identity: BoxIdentity;
  listAgents: ListAgents;
  logger: Logger;
  metrics: ApiMetrics;
  clock: () => Date;
  timing?: Partial<AgentEventTiming>;
  /** The process environment: AGENTBOX_RELAY_PORT moves the embedded relay (relay-config.ts). */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The relays agent events go to: `sovereign_mesh.relays`, then the embedded relay when it is on
 * (rule E025 lets it be the only one), each once.
 */
export function publishTargets(manifest: NormalizedManifest, env: Readonly<Record<string, string | undefined>> = {}): string[] {
  const embedded = embeddedRelayUrl(manifest, env);
  const listed = [...manifest.sovereign_mesh.relays];
  return embedded === undefined || listed.includes(embedded) ? listed : [...listed, embedded];
}

/**
 * Start publishing what the manifest asks for: with `sovereign_mesh.enabled` and relays to publish
 * to, approval requests always go there (approvers watching the relays see them); agent and bead
 * events, and the relays' part in readiness, only with `publish_agent_events`. Otherwise return
 * the no-op and open no connection at all.
 */
export function startAgentEvents(options: AgentEventOptions): AgentEvents {
  const sm = options.manifest.sovereign_mesh;
  if (!sm.enabled) return OFF;
  const relays = publishTargets(options.manifest, options.env);
  if (relays.length === 0) return OFF;
  const timing = { ...DEFAULT_AGENT_EVENT_TIMING, ...options.timing };
  const logger = options.logger.child({ component: 'agent-events' });
  const origin: EventOrigin = { box: options.manifest.agentbox.name, manifestSha256: options.manifestSha256 };
  const connect = (): RelayPublisher => new RelayPublisher(relays, { identity: options.identity, logger, metrics: options.metrics.mesh, timing });
  if (!sm.publish_agent_events) return approvalsOnly(connect, origin, options.clock);
  const publisher = connect();
  const watcher = new AgentWatcher({
    list: options.listAgents,
    logger,
    intervalMs: timing.agentPollMs,
    onChange: (agent) => publisher.publish(agentEvent(agent, origin, options.clock())),
  });
  // A bead repeated by an idempotent call (the same claim or close again) is announced once.
  const announced = new Map<string, string>();
  publisher.start();
  watcher.start();
  logger.info({ event: 'AgentEventsPublishing', relays, pubkey: options.identity.pubkey }, `publishing agent events to ${relays.length} relay(s)`);
  return {
    beadChanged(bead) {
      const key = `${bead.status}:${bead.claimedBy ?? ''}:${bead.outcome ?? ''}`;
      if (announced.get(bead.id) === key) return;
      announced.delete(bead.id);
      announced.set(bead.id, key);
      if (announced.size > 10_000) announced.delete(announced.keys().next().value as string);
      publisher.publish(beadEvent(bead, origin, options.clock()));
    },
    agentsChanged: () => void watcher.poll(),
    approvalRequested: (request, subject) => void publisher.publish(approvalRequestEvent(request, subject, origin, options.clock())),
    relayStatus: () => publisher.status(),
    onRelayChange: (listener) => publisher.onChange(listener),
    close() {
      watcher.close();
      publisher.close();
    },
  };
}

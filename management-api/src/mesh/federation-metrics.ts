// Metrics of federation: a client's registration state and calls, a host's members, heartbeats and evictions (bounded labels only).
import { Counter, Gauge, type Registry } from 'prom-client';

/** A mesh client's states; `disabled` when the box is not a client. */
export const CLIENT_STATES = ['disabled', 'registering', 'registered', 'backing_off'] as const;
/** One of {@link CLIENT_STATES}. */
export type ClientState = (typeof CLIENT_STATES)[number];

/** The federation metrics. */
export interface FederationMetrics {
  /** `agentbox_mesh_client_state{state}`: 1 for the client's current state, 0 for the others. */
  clientState: Gauge<'state'>;
  /** `agentbox_mesh_client_calls_total{call, outcome}`: register/heartbeat/deregister calls by outcome (ok, gone, refused, error). */
  clientCalls: Counter<'call' | 'outcome'>;
  /** `agentbox_mesh_host_members{state}`: members of this host by state (registered, evicted), as of the last sweep. */
  hostMembers: Gauge<'state'>;
  /** `agentbox_mesh_host_requests_total{call, outcome}`: member calls this host answered (register, heartbeat, deregister) by outcome (ok, gone). */
  hostRequests: Counter<'call' | 'outcome'>;
  /** `agentbox_mesh_host_evictions_total`: members this replica evicted after three missed heartbeats. */
  hostEvictions: Counter;
  /** `agentbox_mesh_witness_offers_total{outcome}`: checkpoints members offered this host, by outcome (cosigned, proof-needed, malformed, refused). */
  witnessOffers: Counter<'outcome'>;
  /** `agentbox_mesh_witness_refusals_total{reason}`: checkpoints refused a cosignature, by reason (flagged, or what flagged the member). */
  witnessRefusals: Counter<'reason'>;
  /** `agentbox_mesh_witness_flagged_members`: member keys whose log is flagged until an operator clears it. */
  witnessFlagged: Gauge;
}

/** Create the federation metrics in `registry`. */
export function createFederationMetrics(registry: Registry): FederationMetrics {
  const registers = [registry];
  return {
    clientState: new Gauge({
      name: 'agentbox_mesh_client_state',
      help: 'Mesh client state: 1 for the current one of disabled, registering, registered, backing_off.',
      labelNames: ['state'] as const,
      registers,
    }),
    clientCalls: new Counter({
      name: 'agentbox_mesh_client_calls_total',
      help: 'Calls of this box to its mesh host, by call (register, heartbeat, deregister) and outcome (ok; gone: the host no longer knows the session; refused: a 4xx answer; error: unreachable, timeout or 5xx).',
      labelNames: ['call', 'outcome'] as const,
      registers,
    }),
    hostMembers: new Gauge({
      name: 'agentbox_mesh_host_members',
      help: 'Members of this mesh host by state (registered, evicted), as of the last sweep.',
      labelNames: ['state'] as const,
      registers,
    }),
    hostRequests: new Counter({
      name: 'agentbox_mesh_host_requests_total',
      help: 'Member calls answered by this mesh host, by call (register, heartbeat, deregister) and outcome (ok; gone: unknown or evicted session, 410).',
      labelNames: ['call', 'outcome'] as const,
      registers,
    }),
    hostEvictions: new Counter({
      name: 'agentbox_mesh_host_evictions_total',
      help: 'Members this host replica evicted after three missed heartbeat intervals.',
      registers,
    }),
    witnessOffers: new Counter({
      name: 'agentbox_mesh_witness_offers_total',
      help: 'Event log checkpoints members offered this mesh host to cosign, by outcome (cosigned; proof-needed: a consistency proof from the last size cosigned is asked for; malformed; refused).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    witnessRefusals: new Counter({
      name: 'agentbox_mesh_witness_refusals_total',
      help: 'Checkpoints this mesh host refused to cosign, by reason: flagged (the member is flagged already), or what flagged it (log-key-changed, bad-signature, origin-changed, shrunk, fork, inconsistent).',
      labelNames: ['reason'] as const,
      registers,
    }),
    witnessFlagged: new Gauge({
      name: 'agentbox_mesh_witness_flagged_members',
      help: 'Mesh members whose event log this host flagged as rewritten, until an operator clears them.',
      registers,
    }),
  };
}

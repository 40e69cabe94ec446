// The events slot: an append-only sink of agent and box events, queryable and subscribable.
import type { AdapterLifecycle, Page, PageRequest } from '../adapter.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.1.0';

/** What a caller appends. */
export interface NewEvent {
  /** Dotted kind, e.g. `agent.spawned`. */
  kind: string;
  /** Who emitted it (agent id, programme, `api`). */
  source: string;
  data?: Record<string, unknown>;
}

/** A stored event: acknowledged events are durable. */
export interface StoredEvent extends Required<NewEvent> {
  id: string;
  /** Position in the sink, strictly increasing. */
  seq: number;
  /** ISO-8601 time of acceptance. */
  time: string;
}

/** Filters for {@link EventsAdapter.query} and {@link EventsAdapter.subscribe}. */
export interface EventFilter {
  kinds?: string[];
  /** Inclusive ISO-8601 bounds. */
  since?: string;
  until?: string;
}

/** A checkpoint of the log signed by the box (C2SP tlog-checkpoint in a signed note). */
export interface LogCheckpoint {
  /** The log's name, the checkpoint's first line and the signing key's name. */
  origin: string;
  /** Entries the checkpoint covers. */
  size: number;
  /** RFC 6962 root hash of those entries, base64. */
  root: string;
  /** The signed note, as served at GET /v1/events/checkpoint. */
  note: string;
  /** When it was signed (ISO-8601; empty for one read back from disk at start). */
  time: string;
}

/** Proof that entry `index` (seq index + 1) is in the tree of `size` entries; hashes base64. */
export interface LogInclusionProof {
  index: number;
  size: number;
  leafHash: string;
  path: string[];
}

/** Proof that the tree of `from` entries is a prefix of the tree of `to`; hashes base64. */
export interface LogConsistencyProof {
  from: number;
  to: number;
  path: string[];
}

/** The log's name and the key its checkpoints verify with. */
export interface LogKey {
  origin: string;
  /** Signed-note verifier key: `<origin>+<key ID hex>+<base64(0x01 || Ed25519 public key)>`. */
  verifierKey: string;
}

/**
 * The event sink. `append` resolves only once the events are durable (a failed write rejects;
 * it is never swallowed). `subscribe` resolves once the subscription is live and yields events
 * appended afterwards until `signal` aborts.
 */
export interface EventsAdapter extends AdapterLifecycle {
  append(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  query(filter: EventFilter & PageRequest): Promise<Page<StoredEvent>>;
  subscribe(filter: EventFilter, signal: AbortSignal): Promise<AsyncIterable<StoredEvent>>;
  /** The latest signed checkpoint. Sinks that keep no Merkle tree reject (AdapterNotFoundError). */
  checkpoint(): Promise<LogCheckpoint>;
  /**
   * Sign a checkpoint of the log as it is now, unless the latest already covers every entry, and
   * return the latest: what a backup taken next holds up to. Sinks without a tree reject as checkpoint().
   */
  signCheckpoint(): Promise<LogCheckpoint>;
  /** Inclusion proof of entry `index` in the tree of `size` entries (default: the latest checkpoint's size). */
  inclusionProof(index: number, size?: number): Promise<LogInclusionProof>;
  /** Consistency proof from `from` to `to` entries (default: the latest checkpoint's size). */
  consistencyProof(from: number, to?: number): Promise<LogConsistencyProof>;
  /** The log's origin and verifier key. */
  logKey(): Promise<LogKey>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const EVENTS_OPERATIONS = [
  'append',
  'query',
  'subscribe',
  'checkpoint',
  'signCheckpoint',
  'inclusionProof',
  'consistencyProof',
  'logKey',
] as const satisfies ReadonlyArray<keyof EventsAdapter>;

// The events slot: an append-only sink of agent and box events, queryable and subscribable.
import type { AdapterLifecycle, Page, PageRequest } from '../adapter.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.0.0';

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

/**
 * The event sink. `append` resolves only once the events are durable (a failed write rejects;
 * it is never swallowed). `subscribe` resolves once the subscription is live and yields events
 * appended afterwards until `signal` aborts.
 */
export interface EventsAdapter extends AdapterLifecycle {
  append(events: readonly NewEvent[]): Promise<StoredEvent[]>;
  query(filter: EventFilter & PageRequest): Promise<Page<StoredEvent>>;
  subscribe(filter: EventFilter, signal: AbortSignal): Promise<AsyncIterable<StoredEvent>>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const EVENTS_OPERATIONS = ['append', 'query', 'subscribe'] as const satisfies ReadonlyArray<keyof EventsAdapter>;

// The memory slot: vector memory, stored and searched by namespace.
import type { AdapterLifecycle, Page, PageRequest } from '../adapter.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.0.0';

/** A stored memory. `vector` has `integrations.memory.dimension` components. */
export interface MemoryRecord {
  id: string;
  namespace: string;
  text: string;
  metadata: Record<string, unknown>;
  vector: Float32Array;
  createdAt: string;
}

/** What a caller stores. Without `vector`, the built-in text embedder computes one from `text`. */
export interface NewMemory {
  id?: string;
  text: string;
  metadata?: Record<string, unknown>;
  vector?: Float32Array | readonly number[];
}

/** A nearest-neighbour query: by `vector`, or by `text` through the built-in embedder. */
export interface MemoryQuery {
  text?: string;
  vector?: Float32Array | readonly number[];
  /** How many neighbours (top-k). */
  k: number;
}

/** One search hit; higher `score` is closer (cosine similarity). */
export interface MemoryHit {
  id: string;
  score: number;
  text: string;
  metadata: Record<string, unknown>;
}

/** Summary of a record in a listing (without the vector). */
export type MemorySummary = Omit<MemoryRecord, 'vector'>;

/**
 * Vector memory. Namespaces isolate callers; a wrong vector dimension rejects with
 * AdapterInputError; unknown ids reject `retrieve` with AdapterNotFoundError.
 */
export interface MemoryAdapter extends AdapterLifecycle {
  store(namespace: string, memory: NewMemory): Promise<{ id: string }>;
  search(namespace: string, query: MemoryQuery): Promise<MemoryHit[]>;
  retrieve(namespace: string, id: string): Promise<MemoryRecord>;
  /** Resolves to false when there was nothing to delete. */
  delete(namespace: string, id: string): Promise<boolean>;
  list(namespace: string, request: PageRequest): Promise<Page<MemorySummary>>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const MEMORY_OPERATIONS = ['store', 'search', 'retrieve', 'delete', 'list'] as const satisfies ReadonlyArray<keyof MemoryAdapter>;

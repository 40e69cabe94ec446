// The pods slot: Solid-style storage of resources and containers, with ETags and conditional writes.
import type { AdapterLifecycle, Page, PageRequest } from '../adapter.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.0.0';

/** Metadata of a resource or container. Paths are absolute within the pod (`/notes/a.md`); containers end in `/`. */
export interface PodEntry {
  path: string;
  isContainer: boolean;
  contentType: string;
  /** Strong ETag, quoted as in HTTP (`"…"`). */
  etag: string;
  size: number;
  modifiedAt: string;
}

/** A resource with its content. */
export interface PodResource extends PodEntry {
  body: Uint8Array;
}

/** Preconditions for writes, with HTTP semantics. */
export interface PodConditions {
  /** Write only if the current ETag equals this one. */
  ifMatch?: string;
  /** `*`: write only if the resource does not exist yet. */
  ifNoneMatch?: '*';
}

/** Options of {@link PodsAdapter.put}. */
export interface PodPutOptions extends PodConditions {
  contentType: string;
}

/**
 * Pod storage. Missing paths reject with AdapterNotFoundError; a failed precondition rejects with
 * AdapterPreconditionError; paths escaping the pod (`..`, symlinks) reject with AdapterInputError.
 */
export interface PodsAdapter extends AdapterLifecycle {
  get(path: string): Promise<PodResource>;
  /** Create or replace a resource (intermediate containers are created). */
  put(path: string, body: Uint8Array, options: PodPutOptions): Promise<{ etag: string; created: boolean }>;
  delete(path: string, conditions?: PodConditions): Promise<void>;
  /** Direct members of a container, in path order. */
  list(containerPath: string, request: PageRequest): Promise<Page<PodEntry>>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const PODS_OPERATIONS = ['get', 'put', 'delete', 'list'] as const satisfies ReadonlyArray<keyof PodsAdapter>;

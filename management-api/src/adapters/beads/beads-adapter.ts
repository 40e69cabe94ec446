// The beads slot: task receipts (epics and their children, claims, outcomes, dependencies).
import type { AdapterLifecycle, Page, PageRequest } from '../adapter.js';

/** Version of this interface; implementations report it and /v1/meta lists it. */
export const CONTRACT_VERSION = '1.0.0';

/** Where a bead is in its life. */
export type BeadStatus = 'open' | 'claimed' | 'closed';

/** How a closed bead ended. */
export type BeadOutcome = 'success' | 'failure' | 'cancelled';

/** A task receipt. */
export interface Bead {
  id: string;
  kind: 'epic' | 'task';
  title: string;
  body: string;
  /** The epic this bead belongs to. */
  parentId?: string;
  /** Beads that must be closed with `success` before this one is ready. */
  dependsOn: string[];
  status: BeadStatus;
  claimedBy?: string;
  claimedAt?: string;
  closedAt?: string;
  outcome?: BeadOutcome;
  outcomeNote?: string;
  /** ISO-8601 timestamps. */
  createdAt: string;
  updatedAt: string;
}

/** What a caller supplies to create a bead. */
export interface NewBead {
  kind?: 'epic' | 'task';
  title: string;
  body?: string;
  parentId?: string;
  dependsOn?: string[];
}

/** Filters for {@link BeadsAdapter.list}. */
export interface BeadQuery extends PageRequest {
  status?: BeadStatus;
  parentId?: string;
}

/** Result of a claim: `claimed` is true for the winner, and again for the same claimant (claims are idempotent). */
export interface ClaimResult {
  bead: Bead;
  claimed: boolean;
}

/**
 * Task receipts. `closeBead` (not `close`, which is the adapter lifecycle) ends a bead with an
 * outcome. Unknown ids reject with AdapterNotFoundError; a bead claimed by someone else rejects
 * `claim` with AdapterConflictError.
 */
export interface BeadsAdapter extends AdapterLifecycle {
  create(input: NewBead): Promise<Bead>;
  get(id: string): Promise<Bead>;
  list(query: BeadQuery): Promise<Page<Bead>>;
  /** Atomically claim an open bead; exactly one of many concurrent claimants wins. */
  claim(id: string, claimant: string): Promise<ClaimResult>;
  closeBead(id: string, outcome: BeadOutcome, note?: string): Promise<Bead>;
  /** Open beads whose dependencies are all closed with success, oldest first. */
  readyQueue(request: PageRequest): Promise<Page<Bead>>;
}

/** The operations the resolver dispatches (and measures) for this slot. */
export const BEADS_OPERATIONS = ['create', 'get', 'list', 'claim', 'closeBead', 'readyQueue'] as const satisfies ReadonlyArray<keyof BeadsAdapter>;

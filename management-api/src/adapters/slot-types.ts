// The slot → interface map, each slot's dispatched operations, and their contract versions.
import type { OperationName, SlotName } from './adapter.js';
import { BEADS_OPERATIONS, CONTRACT_VERSION as BEADS_CONTRACT, type BeadsAdapter } from './beads/beads-adapter.js';
import { PODS_OPERATIONS, CONTRACT_VERSION as PODS_CONTRACT, type PodsAdapter } from './pods/pods-adapter.js';
import { MEMORY_OPERATIONS, CONTRACT_VERSION as MEMORY_CONTRACT, type MemoryAdapter } from './memory/memory-adapter.js';
import { EVENTS_OPERATIONS, CONTRACT_VERSION as EVENTS_CONTRACT, type EventsAdapter } from './events/events-adapter.js';
import { ORCHESTRATOR_OPERATIONS, CONTRACT_VERSION as ORCHESTRATOR_CONTRACT, type OrchestratorAdapter } from './orchestrator/orchestrator-adapter.js';

/** The interface each slot's implementations provide. */
export interface SlotAdapters {
  beads: BeadsAdapter;
  pods: PodsAdapter;
  memory: MemoryAdapter;
  events: EventsAdapter;
  orchestrator: OrchestratorAdapter;
}

/** What routes see of a slot: its operations only (the resolver owns the lifecycle). */
export type SlotOperations<S extends SlotName> = Pick<SlotAdapters[S], OperationName<SlotAdapters[S]>>;

/** Operations the resolver wraps (checked, measured, traced) per slot. */
export const OPERATIONS: { readonly [S in SlotName]: ReadonlyArray<OperationName<SlotAdapters[S]>> } = {
  beads: BEADS_OPERATIONS,
  pods: PODS_OPERATIONS,
  memory: MEMORY_OPERATIONS,
  events: EVENTS_OPERATIONS,
  orchestrator: ORCHESTRATOR_OPERATIONS,
};

/** The interface version of each slot. */
export const CONTRACT_VERSIONS: { readonly [S in SlotName]: string } = {
  beads: BEADS_CONTRACT,
  pods: PODS_CONTRACT,
  memory: MEMORY_CONTRACT,
  events: EVENTS_CONTRACT,
  orchestrator: ORCHESTRATOR_CONTRACT,
};

// Compile-time guard: an operation added to an interface but not to its list would escape
// measurement and the degraded check, so an incomplete list fails to type-check here.
type Complete<A, L extends readonly string[]> = [Exclude<OperationName<A>, L[number]>] extends [never] ? true : never;
const listsAreComplete: [
  Complete<BeadsAdapter, typeof BEADS_OPERATIONS>,
  Complete<PodsAdapter, typeof PODS_OPERATIONS>,
  Complete<MemoryAdapter, typeof MEMORY_OPERATIONS>,
  Complete<EventsAdapter, typeof EVENTS_OPERATIONS>,
  Complete<OrchestratorAdapter, typeof ORCHESTRATOR_OPERATIONS>,
] = [true, true, true, true, true];
void listsAreComplete;

// Compile-time guard: the interface map has exactly the facts file's slots (the mapped tables
// above already fail for a slot it lacks; this catches one the facts file does not list).
const interfacesAreTheSlots: [Exclude<keyof SlotAdapters, SlotName> | Exclude<SlotName, keyof SlotAdapters>] extends [never] ? true : never = true;
void interfacesAreTheSlots;

// What every adapter implementation shares: slot names, lifecycle, health and the factory shape.
import type { Logger } from 'pino';
import type { NormalizedManifest } from '../manifest/load-manifest.js';
import type { RuntimePaths } from '../runtime-paths.js';
import type { OrchestratorContext } from './orchestrator/orchestrator-context.js';
import { SLOTS as FACT_SLOTS, type BoxFactsShape, type Slot } from '../box-facts.js';

/**
 * One adapter slot: a key of `slots` in schema/box-facts.json. Every table keyed by slot (the
 * registry, the interfaces, the operations) is typed by it, so a slot added to or removed from
 * the facts file fails to type-check until each table follows.
 */
export type SlotName = Slot;

/** The adapter slots, in the order of the facts file (the manifest's order; tests/unit/box-facts.test.ts ties the schema to it). */
export const SLOTS: readonly SlotName[] = FACT_SLOTS;

/** The three implementation classes every slot has: the facts file names each slot's implementation of each. */
export const IMPLEMENTATION_CLASSES = ['local', 'external', 'off'] as const;

/** One implementation class. */
export type ImplementationClass = (typeof IMPLEMENTATION_CLASSES)[number];

// Compile-time guard: the classes are exactly the facts' implementation keys (all but `integration`).
type FactClass = Exclude<keyof BoxFactsShape['slots'][string], 'integration'>;
const classesAreTheFacts: [Exclude<FactClass, ImplementationClass> | Exclude<ImplementationClass, FactClass>] extends [never] ? true : never = true;
void classesAreTheFacts;

/**
 * What an adapter says about itself. `off` is the configured state of a disabled slot;
 * `permanent` marks a degradation that reconnecting cannot fix (so the resolver stops trying).
 */
export interface SlotHealth {
  state: 'healthy' | 'degraded' | 'off';
  /** Short machine-readable reason when not healthy, e.g. `connection-lost`, `not-implemented`. */
  reason?: string;
  permanent?: boolean;
}

/**
 * The lifecycle every adapter implements, whatever its slot.
 *
 * - `connect(signal)` does real I/O (open the database, reach the backend). The resolver may call
 *   it again after a failure, so it must (re-)establish the connection and release a previous one.
 *   It must give up promptly when `signal` aborts.
 * - `health()` checks the backend again (cheaply) and never throws for a backend failure: it
 *   answers `degraded` with a reason.
 * - `close()` releases everything; the adapter is not used afterwards.
 */
export interface AdapterLifecycle {
  connect(signal: AbortSignal): Promise<void>;
  health(signal: AbortSignal): Promise<SlotHealth>;
  close(): Promise<void>;
}

/**
 * What each slot's implementations are configured by: the slot's `[integrations.<slot>]` block
 * (for memory this includes the vector `dimension` every memory implementation uses, for the
 * orchestrator its `command` and `args`). Nothing else of the manifest reaches an adapter.
 */
export type SlotSettings = { readonly [S in SlotName]: Readonly<NormalizedManifest['integrations'][S]> };

/**
 * What every factory receives, whatever its slot: its own slot's settings, not the manifest.
 * Secrets are read by the adapter from the files or variables the settings name.
 */
export interface SlotContext<S extends SlotName = SlotName> {
  slot: S;
  settings: SlotSettings[S];
  paths: RuntimePaths;
  /** Child logger bound to the slot. */
  logger: Logger;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * What a slot's factories receive beyond the common context: the orchestrator, which starts
 * agents, is told more; the events slot is told the manifest's `[audit]` (its checkpoints).
 */
export interface SlotExtras {
  beads: Record<never, never>;
  pods: Record<never, never>;
  memory: Record<never, never>;
  events: { audit?: Readonly<NormalizedManifest['audit']> };
  orchestrator: OrchestratorContext;
}

/**
 * What a factory receives to build an adapter of slot `S`: the common context and its slot's
 * extras. With `S` left open (any slot), only the common part is visible.
 */
export type AdapterContext<S extends SlotName = SlotName> = SlotContext<S> & SlotExtras[S];

// Compile-time guard: the extras name exactly the facts file's slots.
const extrasAreTheSlots: [Exclude<keyof SlotExtras, SlotName> | Exclude<SlotName, keyof SlotExtras>] extends [never] ? true : never = true;
void extrasAreTheSlots;

/**
 * An implementation module: one file per implementation, `adapters/<slot>/<impl>.ts`, exporting
 * `ADAPTER = '<slot>/<impl>'`, the `CONTRACT_VERSION` of the slot interface it implements, and
 * `create`, which builds an adapter `A` of slot `S`.
 */
export interface AdapterModule<A, S extends SlotName = SlotName> {
  ADAPTER: string;
  CONTRACT_VERSION: string;
  create(context: AdapterContext<S>): A;
}

/** Keys of `T` whose values are functions, minus the lifecycle: the slot's operations. */
export type OperationName<T> = Exclude<{ [K in keyof T]: T[K] extends (...args: never[]) => unknown ? K : never }[keyof T], keyof AdapterLifecycle> & string;

/** A page of results (paged by adapters/cursor-pager.ts) with an opaque cursor for the next page (absent on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** Common paging parameters. */
export interface PageRequest {
  /** Maximum items to return (implementations cap it). */
  limit?: number;
  cursor?: string;
}

// The registry: for each slot, its local, external and off implementations, loaded on demand.
import type { AdapterModule, ImplementationClass, SlotName } from './adapter.js';
import type { SlotAdapters } from './slot-types.js';

/** One implementation: the name the manifest uses and how to load its module. */
export interface RegistryEntry<S extends SlotName> {
  /** The value of `adapters.<slot>` that selects it (e.g. `local-sqlite`). */
  impl: string;
  /** Loaded lazily so native dependencies are only paid for by the slots that use them. */
  load(): Promise<AdapterModule<SlotAdapters[S], S>>;
}

/** slot → {local, external, off}. */
export type AdapterRegistry = { readonly [S in SlotName]: { readonly [C in ImplementationClass]: RegistryEntry<S> } };

/**
 * Replacement modules by slot, used instead of whatever the manifest selects (tests inject
 * adapters that talk to real test backends this way).
 */
export type RegistryOverrides = { readonly [S in SlotName]?: AdapterModule<SlotAdapters[S], S> };

/** The built-in implementations. */
export const registry: AdapterRegistry = {
  beads: {
    local: { impl: 'local-sqlite', load: () => import('./beads/local-sqlite.js') },
    external: { impl: 'external-http', load: () => import('./beads/external-http.js') },
    off: { impl: 'off', load: () => import('./beads/off.js') },
  },
  pods: {
    local: { impl: 'local-fs', load: () => import('./pods/local-fs.js') },
    external: { impl: 'external-solid', load: () => import('./pods/external-solid.js') },
    off: { impl: 'off', load: () => import('./pods/off.js') },
  },
  memory: {
    local: { impl: 'local-ruvector', load: () => import('./memory/local-ruvector.js') },
    external: { impl: 'external-pg', load: () => import('./memory/external-pg.js') },
    off: { impl: 'off', load: () => import('./memory/off.js') },
  },
  events: {
    local: { impl: 'local-jsonl', load: () => import('./events/local-jsonl.js') },
    external: { impl: 'external-http', load: () => import('./events/external-http.js') },
    off: { impl: 'off', load: () => import('./events/off.js') },
  },
  orchestrator: {
    local: { impl: 'local-procmgr', load: () => import('./orchestrator/local-procmgr.js') },
    external: { impl: 'external-stdio', load: () => import('./orchestrator/external-stdio.js') },
    off: { impl: 'off', load: () => import('./orchestrator/off.js') },
  },
};

/** The implementation names a slot accepts, local first (the schema enum must equal this). */
export function implementationNames(slot: SlotName, from: AdapterRegistry = registry): string[] {
  const entries = from[slot];
  return [entries.local.impl, entries.external.impl, entries.off.impl];
}

/** Load the module for `impl` of `slot`, or the override for the slot when one is given. */
export async function loadImplementation<S extends SlotName>(slot: S, impl: string, overrides: RegistryOverrides = {}, from: AdapterRegistry = registry): Promise<AdapterModule<SlotAdapters[S], S>> {
  const override = overrides[slot] as AdapterModule<SlotAdapters[S], S> | undefined;
  if (override) return override;
  const entries = from[slot] as AdapterRegistry[S];
  const entry = [entries.local, entries.external, entries.off].find((e) => e.impl === impl);
  // The schema enum makes this unreachable for a validated manifest; a test ties the two.
  if (!entry) throw new Error(`no implementation "${impl}" for adapter slot "${slot}"`);
  return entry.load();
}

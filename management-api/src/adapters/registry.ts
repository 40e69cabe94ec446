// The registry: for each slot, its local, external and off implementations, loaded on demand; their names are the facts file's.
import { boxFacts } from '../box-facts.js';
import { IMPLEMENTATION_CLASSES, SLOTS, type AdapterModule, type ImplementationClass, type SlotName } from './adapter.js';
import type { SlotAdapters } from './slot-types.js';

/** How to load one implementation's module. */
export type Loader<S extends SlotName> = () => Promise<AdapterModule<SlotAdapters[S], S>>;

/** One implementation: the name the manifest uses and how to load its module. */
export interface RegistryEntry<S extends SlotName> {
  /** The value of `adapters.<slot>` that selects it (e.g. `local-sqlite`): schema/box-facts.json `slots.<slot>.<class>`. */
  impl: string;
  /** Loaded lazily so native dependencies are only paid for by the slots that use them. */
  load: Loader<S>;
}

/** slot → {local, external, off}. */
export type AdapterRegistry = { readonly [S in SlotName]: { readonly [C in ImplementationClass]: RegistryEntry<S> } };

/**
 * Replacement modules by slot, used instead of whatever the manifest selects (tests inject
 * adapters that talk to real test backends this way).
 */
export type RegistryOverrides = { readonly [S in SlotName]?: AdapterModule<SlotAdapters[S], S> };

/** Each slot's module loaders by implementation class. */
export type AdapterModules = { readonly [S in SlotName]: { readonly [C in ImplementationClass]: Loader<S> } };

/**
 * The modules by slot and class. Typed by the facts file's slots: a slot missing here, or one the
 * facts file does not list, fails to type-check. The names are not repeated: each entry answers
 * to the facts' name, and a module whose `ADAPTER` is not `<slot>/<that name>` is refused when it
 * loads (the file was not renamed with the fact).
 */
const modules: AdapterModules = {
  beads: { local: () => import('./beads/local-sqlite.js'), external: () => import('./beads/external-http.js'), off: () => import('./beads/off.js') },
  pods: { local: () => import('./pods/local-fs.js'), external: () => import('./pods/external-solid.js'), off: () => import('./pods/off.js') },
  memory: { local: () => import('./memory/local-ruvector.js'), external: () => import('./memory/external-pg.js'), off: () => import('./memory/off.js') },
  events: { local: () => import('./events/local-jsonl.js'), external: () => import('./events/external-http.js'), off: () => import('./events/off.js') },
  orchestrator: {
    local: () => import('./orchestrator/local-procmgr.js'),
    external: () => import('./orchestrator/external-stdio.js'),
    off: () => import('./orchestrator/off.js'),
  },
};

/** `load`, refusing a module that names another implementation than the facts file's `impl` for `slot`. */
function checkedLoader<S extends SlotName>(slot: S, cls: ImplementationClass, impl: string, load: Loader<S>): Loader<S> {
  return async () => {
    const module = await load();
    if (module.ADAPTER !== `${slot}/${impl}`) {
      throw new Error(
        `adapters/registry: schema/box-facts.json names the ${cls} implementation of slot "${slot}" "${impl}", but its module is ${module.ADAPTER}; rename the module (and its ADAPTER) or correct slots.${slot}.${cls}`,
      );
    }
    return module;
  };
}

/** The registry of `from`: each slot's entries named by the facts file, each refusing a module that names another. */
export function registryOf(from: AdapterModules): AdapterRegistry {
  const entries = <S extends SlotName>(slot: S): AdapterRegistry[S] => {
    const names = boxFacts.slots[slot];
    const entry = (cls: ImplementationClass): RegistryEntry<S> => ({ impl: names[cls], load: checkedLoader(slot, cls, names[cls], from[slot][cls]) });
    return Object.fromEntries(IMPLEMENTATION_CLASSES.map((cls) => [cls, entry(cls)])) as AdapterRegistry[S];
  };
  return Object.fromEntries(SLOTS.map((slot) => [slot, entries(slot)])) as unknown as AdapterRegistry;
}

/** The built-in implementations. */
export const registry: AdapterRegistry = registryOf(modules);

/** The implementation names a slot accepts, local first (the schema enum must equal this). */
export function implementationNames(slot: SlotName, from: AdapterRegistry = registry): string[] {
  return IMPLEMENTATION_CLASSES.map((cls) => from[slot][cls].impl);
}

/** Load the module for `impl` of `slot`, or the override for the slot when one is given. */
export async function loadImplementation<S extends SlotName>(
  slot: S,
  impl: string,
  overrides: RegistryOverrides = {},
  from: AdapterRegistry = registry,
): Promise<AdapterModule<SlotAdapters[S], S>> {
  const override = overrides[slot] as AdapterModule<SlotAdapters[S], S> | undefined;
  if (override) return override;
  const entries = from[slot] as AdapterRegistry[S];
  const entry = IMPLEMENTATION_CLASSES.map((cls) => entries[cls]).find((e) => e.impl === impl);
  // The schema enum makes this unreachable for a validated manifest; a test ties the two.
  if (!entry) throw new Error(`no implementation "${impl}" for adapter slot "${slot}"`);
  return entry.load();
}

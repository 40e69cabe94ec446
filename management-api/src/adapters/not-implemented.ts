// Stand-in for an implementation that does not exist yet: always degraded, never silently healthy.
import type { AdapterModule, SlotHealth, SlotName } from './adapter.js';
import { AdapterDegradedError } from '../adapter-errors.js';
import { CONTRACT_VERSIONS, OPERATIONS, type SlotAdapters } from './slot-types.js';

/** The reason a stand-in reports. */
export const NOT_IMPLEMENTED = 'not-implemented';

/**
 * A loader for `<slot>/<impl>` whose adapter connects (there is nothing to reach) but reports
 * itself degraded with reason `not-implemented`, permanently, so /ready and /health tell the truth.
 */
export function notImplemented<S extends SlotName>(slot: S, impl: string): () => Promise<AdapterModule<SlotAdapters[S]>> {
  const module: AdapterModule<SlotAdapters[S]> = {
    ADAPTER: `${slot}/${impl}`,
    CONTRACT_VERSION: CONTRACT_VERSIONS[slot],
    create: () => {
      const health: SlotHealth = { state: 'degraded', reason: NOT_IMPLEMENTED, permanent: true };
      const adapter: Record<string, unknown> = {
        connect: async () => undefined,
        health: async () => ({ ...health }),
        close: async () => undefined,
      };
      for (const op of OPERATIONS[slot]) adapter[op] = () => Promise.reject(new AdapterDegradedError(slot, NOT_IMPLEMENTED));
      return adapter as unknown as SlotAdapters[S];
    },
  };
  return async () => module;
}

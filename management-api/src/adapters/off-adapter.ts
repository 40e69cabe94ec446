// Builds the `off` implementation of a slot: predictable, no I/O, operations reject with AdapterOffError.
import type { AdapterLifecycle, OperationName, SlotHealth, SlotName } from './adapter.js';
import { AdapterOffError } from '../adapter-errors.js';

/**
 * An adapter for a slot switched off. Lifecycle calls always succeed; every operation returns a
 * promise rejected with AdapterOffError (never a synchronous throw), so callers handle one path.
 */
export function offAdapter<A extends AdapterLifecycle>(slot: SlotName, operations: ReadonlyArray<OperationName<A>>): A {
  const health: SlotHealth = { state: 'off' };
  const adapter: Record<string, unknown> = {
    connect: async () => undefined,
    health: async () => ({ ...health }),
    close: async () => undefined,
  };
  for (const op of operations) adapter[op] = () => Promise.reject(new AdapterOffError(slot, op));
  return adapter as unknown as A;
}

// The memory slot switched off: no I/O; every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF).
import type { AdapterContext } from '../adapter.js';
import { offAdapter } from '../off-adapter.js';
import { MEMORY_OPERATIONS, type MemoryAdapter } from './memory-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'memory/off';
export { CONTRACT_VERSION } from './memory-adapter.js';

/** A memory adapter that is off. */
export function create(_context: AdapterContext<'memory'>): MemoryAdapter {
  return offAdapter<MemoryAdapter>('memory', MEMORY_OPERATIONS);
}

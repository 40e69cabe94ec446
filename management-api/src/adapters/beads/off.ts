// The beads slot switched off: no I/O; every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF).
import type { AdapterContext } from '../adapter.js';
import { offAdapter } from '../off-adapter.js';
import { BEADS_OPERATIONS, type BeadsAdapter } from './beads-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'beads/off';
export { CONTRACT_VERSION } from './beads-adapter.js';

/** A beads adapter that is off. */
export function create(_context: AdapterContext<'beads'>): BeadsAdapter {
  return offAdapter<BeadsAdapter>('beads', BEADS_OPERATIONS);
}

// The pods slot switched off: no I/O; every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF).
import type { AdapterContext } from '../adapter.js';
import { offAdapter } from '../off-adapter.js';
import { PODS_OPERATIONS, type PodsAdapter } from './pods-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'pods/off';
export { CONTRACT_VERSION } from './pods-adapter.js';

/** A pods adapter that is off. */
export function create(_context: AdapterContext<'pods'>): PodsAdapter {
  return offAdapter<PodsAdapter>('pods', PODS_OPERATIONS);
}

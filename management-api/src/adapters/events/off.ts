// The events slot switched off: no I/O; every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF).
import type { AdapterContext } from '../adapter.js';
import { offAdapter } from '../off-adapter.js';
import { EVENTS_OPERATIONS, type EventsAdapter } from './events-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'events/off';
export { CONTRACT_VERSION } from './events-adapter.js';

/** An events adapter that is off. */
export function create(_context: AdapterContext<'events'>): EventsAdapter {
  return offAdapter<EventsAdapter>('events', EVENTS_OPERATIONS);
}

// The orchestrator slot switched off: no I/O; every operation rejects with AdapterOffError (503 ABX_ERR_ADAPTER_OFF).
import type { AdapterContext } from '../adapter.js';
import { offAdapter } from '../off-adapter.js';
import { ORCHESTRATOR_OPERATIONS, type OrchestratorAdapter } from './orchestrator-adapter.js';

/** This implementation's registry name. */
export const ADAPTER = 'orchestrator/off';
export { CONTRACT_VERSION } from './orchestrator-adapter.js';

/** An orchestrator adapter that is off. */
export function create(_context: AdapterContext<'orchestrator'>): OrchestratorAdapter {
  return offAdapter<OrchestratorAdapter>('orchestrator', ORCHESTRATOR_OPERATIONS);
}

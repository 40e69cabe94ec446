// The states a slot can be in, and the one rule for whether a slot in a state can serve operations.
/** Where a slot is. `off` is a slot configured off; `connecting` only before the first connect ends. */
export type SlotState = 'connecting' | 'healthy' | 'degraded' | 'off';

/**
 * Whether a slot in `state` is usable: healthy, or off (configured off is not a fault: its
 * operations answer a predictable 503 ABX_ERR_ADAPTER_OFF). A degraded or still connecting slot is
 * not. The one rule behind dispatch (refuse with ABX_ERR_ADAPTER_DEGRADED), /ready (a critical
 * slot that is not usable makes the box UNREADY, another is listed as degraded), /health
 * (`degraded`) and the `agentbox_adapter_health` gauge.
 */
export function isSlotUsable(state: SlotState): boolean {
  return state === 'healthy' || state === 'off';
}

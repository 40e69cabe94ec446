// The adapter slots as rules see them: which implementation each uses and how its external one is configured (schema/box-facts.json).
import type { Manifest } from '../../generated/manifest-types.js';
import { boxFacts, SLOTS, type BoxFactsShape, type Slot } from '../../../box-facts.js';

/** A slot whose external implementation is configured as an HTTP integration (`url`, `token_env`, `token_file`). */
export type HttpSlot = {
  [K in keyof Manifest['integrations']]: Manifest['integrations'][K] extends { url: string; token_env: string } ? K : never;
}[keyof Manifest['integrations']];

/** The local, external and off implementation names of each slot. */
export const slotImpls: Readonly<Record<Slot, BoxFactsShape['slots'][string]>> = boxFacts.slots;

/** Slots configured through an HTTP integration, in schema order (a test ties them to the schema's httpIntegration entries). */
export const HTTP_SLOTS: readonly HttpSlot[] = SLOTS.filter((s): s is Slot & HttpSlot => slotImpls[s].integration === 'http');

/** Slots whose adapter is the external implementation. */
export function externalSlots(m: Manifest): Slot[] {
  return SLOTS.filter((s) => m.adapters[s] === slotImpls[s].external);
}

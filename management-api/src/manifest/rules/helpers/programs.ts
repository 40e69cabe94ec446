// The programme table as rules see it: operator entries, the names and priorities the box keeps for itself.
import type { Manifest, Program } from '../../generated/manifest-types.js';
import { boxFacts } from '../../../box-facts.js';
import type { DeepReadonly } from '../../deep-freeze.js';

/** Priorities below this one order the box's own programmes (schema/box-facts.json). */
export const FIRST_OPERATOR_PRIORITY: number = boxFacts.programs.firstOperatorPriority;

/** `[programs.<name>]` entries, in manifest order (of a manifest as the rules see it, or as loaded: frozen). */
export function programEntries(m: DeepReadonly<Manifest>): Array<[string, DeepReadonly<Program>]> {
  return Object.entries(m.programs).filter((e): e is [string, DeepReadonly<Program>] => e[1] !== undefined);
}

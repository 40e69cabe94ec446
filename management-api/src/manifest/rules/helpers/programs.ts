// The programme table as rules see it: operator entries, the names and priorities the box keeps for itself.
import type { Manifest, Program } from '../../generated/manifest-types.js';
import { boxFacts } from '../../../box-facts.js';

/** Priorities below this one order the box's own programmes (schema/box-facts.json). */
export const FIRST_OPERATOR_PRIORITY: number = boxFacts.programs.firstOperatorPriority;

/** `[programs.<name>]` entries, in manifest order. */
export function programEntries(m: Manifest): Array<[string, Program]> {
  return Object.entries(m.programs).filter((e): e is [string, Program] => e[1] !== undefined);
}

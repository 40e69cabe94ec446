// The rule catalogue: every semantic rule, in id order, and the ids retired for good.
import type { RetiredRule, Rule } from './rule.js';

/** Every active rule. Add a rule here, with its doc page and fixtures (the drift test checks). */
export const ruleCatalogue: readonly Rule[] = [];

/** Ids that once existed; they stay listed so they are never reused. */
export const retiredRules: readonly RetiredRule[] = [];

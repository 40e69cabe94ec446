// Which fields a rule of each action kind may constrain, and how a rule's fields rank it (its specificity).
import type { ActionKind, Verdict } from './policy-types.js';

/** A field a rule may constrain. */
export type RuleField = 'agent' | 'command' | 'args' | 'cwd' | 'profile' | 'host' | 'port' | 'method' | 'path' | 'provider';

/** The fields each kind of action has (a rule of that kind may constrain these only). */
export const FIELDS_BY_KIND: Readonly<Record<ActionKind, readonly RuleField[]>> = {
  spawn: ['agent', 'command', 'args', 'cwd', 'profile'],
  egress: ['agent', 'host', 'port', 'method', 'path'],
  provider: ['agent', 'provider'],
  'egress-change': ['host', 'port'],
};

/** Every field, in the order decisions list them. */
export const ALL_FIELDS: readonly RuleField[] = ['agent', 'command', 'args', 'cwd', 'profile', 'host', 'port', 'method', 'path', 'provider'];

/** At equal specificity: deny beats ask beats allow. */
export const STRENGTH: Readonly<Record<Verdict, number>> = { allow: 0, ask: 1, deny: 2 };

/** Most rules a policy may hold (the schema's bound); the rank packs the index below it. */
export const MAX_RULES = 10_000;
const MAX_LITERAL = 99_999;

/**
 * A rule's rank, one number, higher deciding: (1) the fields it constrains, (2) the literal
 * characters of its patterns (capped at 99,999), (3) deny > ask > allow, (4) the earlier rule.
 * The most specific matching rule decides; a full tie goes to the first listed.
 */
export function rankOf(fields: number, literal: number, decision: Verdict, index: number): number {
  return ((fields * (MAX_LITERAL + 1) + Math.min(literal, MAX_LITERAL)) * 4 + STRENGTH[decision]) * (MAX_RULES + 1) + (MAX_RULES - index);
}

/** The specificity part of a rank (fields and literal characters), without the verdict and the order. */
export function specificityOf(rank: number): number {
  return Math.floor(rank / ((MAX_RULES + 1) * 4));
}

// Checks on what callers send to the beads slot, the same limits the HTTP schemas declare.
import { AdapterInputError } from '../../adapter-errors.js';
import type { BeadOutcome, NewBead } from './beads-adapter.js';

/** Limits shared by the adapter and the route schemas. */
export const BEAD_LIMITS = { title: 500, body: 64 * 1024, claimant: 128, note: 4096, dependsOn: 100, id: 128 } as const;

/** The outcomes a bead can be closed with. */
export const OUTCOMES: readonly BeadOutcome[] = ['success', 'failure', 'cancelled'];

function text(value: unknown, name: string, max: number, min = 1): string {
  if (typeof value !== 'string' || value.length < min || value.length > max)
    throw new AdapterInputError(`${name} must be a string of ${min} to ${max} characters`);
  return value;
}

/** A checked NewBead with defaults applied and dependencies de-duplicated. */
export function checkNewBead(input: NewBead): Required<Omit<NewBead, 'parentId'>> & { parentId?: string } {
  if (!input || typeof input !== 'object') throw new AdapterInputError('a bead must be an object');
  const kind = input.kind ?? 'task';
  if (kind !== 'epic' && kind !== 'task') throw new AdapterInputError('kind must be "epic" or "task"');
  const title = text(input.title, 'title', BEAD_LIMITS.title);
  const body = input.body === undefined ? '' : text(input.body, 'body', BEAD_LIMITS.body, 0);
  const deps = input.dependsOn ?? [];
  if (!Array.isArray(deps) || deps.length > BEAD_LIMITS.dependsOn)
    throw new AdapterInputError(`dependsOn must be an array of at most ${BEAD_LIMITS.dependsOn} bead ids`);
  const dependsOn = [...new Set(deps.map((d, i) => text(d, `dependsOn[${i}]`, BEAD_LIMITS.id)))];
  const out: ReturnType<typeof checkNewBead> = { kind, title, body, dependsOn };
  if (input.parentId !== undefined) out.parentId = text(input.parentId, 'parentId', BEAD_LIMITS.id);
  return out;
}

/** A checked claimant name. */
export function checkClaimant(claimant: string): string {
  return text(claimant, 'claimant', BEAD_LIMITS.claimant);
}

/** A checked outcome and optional note. */
export function checkOutcome(outcome: BeadOutcome, note: string | undefined): { outcome: BeadOutcome; note: string | null } {
  if (!OUTCOMES.includes(outcome)) throw new AdapterInputError(`outcome must be one of ${OUTCOMES.join(', ')}`);
  return { outcome, note: note === undefined ? null : text(note, 'note', BEAD_LIMITS.note, 0) };
}

/** A checked bead id (ids are opaque; only their size is bounded). */
export function checkId(id: string): string {
  return text(id, 'id', BEAD_LIMITS.id);
}

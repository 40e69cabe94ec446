// Mapping between rows of the beads table and Bead objects; the paging of bead listings.
import { cursorPager, seqCursor } from '../cursor-pager.js';
import type { Bead, BeadOutcome, BeadStatus } from './beads-adapter.js';

/** A row as the store's SELECTs return it (dependencies folded in as a JSON array). */
export interface BeadRow {
  seq: number;
  id: string;
  kind: 'epic' | 'task';
  title: string;
  body: string;
  parent_id: string | null;
  status: BeadStatus;
  claimed_by: string | null;
  claimed_at: string | null;
  closed_at: string | null;
  outcome: BeadOutcome | null;
  outcome_note: string | null;
  created_at: string;
  updated_at: string;
  depends_on: string;
}

/** The columns every bead query returns, for the table named (or aliased) `t`. */
export function beadColumns(t: string): string {
  return `${t}.seq, ${t}.id, ${t}.kind, ${t}.title, ${t}.body, ${t}.parent_id, ${t}.status, ${t}.claimed_by, ${t}.claimed_at,
  ${t}.closed_at, ${t}.outcome, ${t}.outcome_note, ${t}.created_at, ${t}.updated_at,
  (SELECT json_group_array(d.depends_on) FROM bead_dependencies d WHERE d.bead_id = ${t}.id) AS depends_on`;
}

/** The Bead a row describes; absent optional fields are left out rather than null. */
export function toBead(row: BeadRow): Bead {
  const bead: Bead = {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    dependsOn: JSON.parse(row.depends_on) as string[],
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
  if (row.parent_id !== null) bead.parentId = row.parent_id;
  if (row.claimed_by !== null) bead.claimedBy = row.claimed_by;
  if (row.claimed_at !== null) bead.claimedAt = row.claimed_at;
  if (row.closed_at !== null) bead.closedAt = row.closed_at;
  if (row.outcome !== null) bead.outcome = row.outcome;
  if (row.outcome_note !== null) bead.outcomeNote = row.outcome_note;
  return bead;
}

/** Paging of bead listings: `base64url("bead:<seq>")` cursors (seq is creation order), 50 per page, at most 500. */
export const BEADS_PAGER = cursorPager({ codec: seqCursor('bead'), defaultLimit: 50, maxLimit: 500, issuer: 'beads store' });

// How many entries one snapshot may hold by default: the disk walk's cap, so every tree the box lets a running agent keep can be captured, and no snapshot holds a tree a fork of it could not run in.
import { MAX_WALK_ENTRIES } from '../sandbox/limits/disk-walk.js';

/**
 * Entries (files, directories, links, and what the walk lists but leaves out) one capture walks at
 * most when its agent has no entry budget of its own (limits.entries, which replaces it). A running agent whose directories hold more is ended (limit:entries, its tree cannot be
 * measured), and a fork of such a snapshot would be; without a cap of its own, a capture of one
 * directory of millions of names (an agent's to make, in the seconds before its next measure)
 * would list them whole, most of that memory outside the capture thread's heap limit.
 */
export const MAX_SNAPSHOT_ENTRIES = MAX_WALK_ENTRIES;

/** The error code of a capture that met more entries than its cap. */
export const TOO_MANY_ENTRIES = 'ETOOMANYENTRIES';

/** The error of a capture that found more than `most` entries, the last listing at `rel` (relative to the workspace, '' for itself). */
export function tooManyEntries(most: number, rel: string): NodeJS.ErrnoException {
  const shown = rel === '' ? '.' : rel.length > 120 ? `${rel.slice(0, 120)}…` : rel;
  const err: NodeJS.ErrnoException = new Error(
    `the workspace holds more than ${most} entries (found listing "${shown}"): too many to snapshot; remove what it need not keep, or raise sandbox.limits.entries`,
  );
  err.code = TOO_MANY_ENTRIES;
  return err;
}

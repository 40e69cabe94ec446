// Paging of container listings: limits, opaque cursors, and the page slice shared by all pods implementations.
import type { PageRequest } from '../adapter.js';
import { AdapterInputError } from '../adapter-errors.js';

/** Items per page when the caller names no limit. */
export const DEFAULT_PAGE_LIMIT = 100;
/** The most items one page returns, whatever the caller asks. */
export const MAX_PAGE_LIMIT = 1000;

/** The effective limit of `request`; a limit below 1 or not an integer is refused. */
export function pageLimit(request: PageRequest): number {
  const { limit } = request;
  if (limit === undefined) return DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new AdapterInputError(`limit must be a positive integer, not ${String(limit)}`);
  return Math.min(limit, MAX_PAGE_LIMIT);
}

/**
 * A cursor names the last member returned, so a page after concurrent inserts or deletes still
 * continues in order without repeating or skipping the members that stayed.
 */
export function encodeCursor(lastName: string): string {
  return Buffer.from(JSON.stringify({ after: lastName }), 'utf8').toString('base64url');
}

/** The member name a cursor continues after; a cursor this module did not make is refused. */
export function decodeCursor(cursor: string): string {
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object' && typeof (value as { after?: unknown }).after === 'string') return (value as { after: string }).after;
  } catch {
    // Fall through to the refusal below.
  }
  throw new AdapterInputError('the cursor is not one this listing returned');
}

/** Code-unit order, the "path order" of the pods interface (stable, locale-independent). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The names of one page from all member `names` (container names end in `/`): sorted, after the
 * cursor, at most the limit; `nextCursor` when more follow.
 */
export function pageOfNames(names: readonly string[], request: PageRequest): { names: string[]; nextCursor?: string } {
  const limit = pageLimit(request);
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  const sorted = [...names].sort(compareNames);
  const rest = after === undefined ? sorted : sorted.filter((n) => compareNames(n, after) > 0);
  const page = rest.slice(0, limit);
  const last = page[page.length - 1];
  return rest.length > limit && last !== undefined ? { names: page, nextCursor: encodeCursor(last) } : { names: page };
}

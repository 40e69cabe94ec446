// Paging of container listings, shared by all pods implementations: the pager and the page slice of member names.
import type { PageRequest } from '../adapter.js';
import { afterNameCursor, cursorPager } from '../cursor-pager.js';

/**
 * Paging of container listings: a cursor names the last member returned (so a page after
 * concurrent inserts or deletes still continues in order without repeating or skipping the
 * members that stayed), 100 per page, at most 1,000.
 */
export const PODS_PAGER = cursorPager({ codec: afterNameCursor(), defaultLimit: 100, maxLimit: 1000, issuer: 'pod listing' });

/** Code-unit order, the "path order" of the pods interface (stable, locale-independent). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The names of one page from all member `names` (container names end in `/`): sorted, after the
 * cursor, at most the limit; `nextCursor` when more follow.
 */
export function pageOfNames(names: readonly string[], request: PageRequest): { names: string[]; nextCursor?: string } {
  const limit = PODS_PAGER.pageLimit(request.limit);
  const after = PODS_PAGER.decodeCursor(request.cursor);
  const rest = [...names].sort(compareNames).filter((n) => compareNames(n, after) > 0);
  const page = PODS_PAGER.page(rest, limit, (n) => n);
  return page.nextCursor === undefined ? { names: page.items } : { names: page.items, nextCursor: page.nextCursor };
}

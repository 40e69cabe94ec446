// Paging shared by every slot: the page shape, page sizes, and opaque cursors (made, read back, foreign ones refused).
import type { Page } from './adapter.js';
import { AdapterInputError } from '../adapter-errors.js';

/** How a cursor carries the key of the last item returned, on the wire. */
export interface CursorCodec<K> {
  /** The key the first page starts after (no cursor given). */
  readonly start: K;
  encode(key: K): string;
  /** The key `cursor` carries, or undefined when this codec did not make it. */
  decode(cursor: string): K | undefined;
}

/**
 * `base64url("<tag>:<seq>")`: the sequence number of the last item. Sequences rise with insertion,
 * so a page after concurrent inserts or deletes continues without repeating or skipping (an offset
 * would). An empty cursor is the first page, like none.
 */
export function seqCursor(tag: string): CursorCodec<number> {
  const pattern = new RegExp(`^${tag}:(\\d{1,15})$`);
  return {
    start: 0,
    encode: (seq) => Buffer.from(`${tag}:${seq}`).toString('base64url'),
    decode: (cursor) => {
      if (cursor === '') return 0;
      const m = pattern.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
      return m ? Number(m[1]) : undefined;
    },
  };
}

/** `base64url('{"after":"<name>"}')`: the last name of a listing in name order. The first page starts after "" (before every name). */
export function afterNameCursor(): CursorCodec<string> {
  return {
    start: '',
    encode: (name) => Buffer.from(JSON.stringify({ after: name }), 'utf8').toString('base64url'),
    decode: (cursor) => {
      try {
        const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
        if (value && typeof value === 'object' && typeof (value as { after?: unknown }).after === 'string') return (value as { after: string }).after;
      } catch {
        // Not JSON: not ours.
      }
      return undefined;
    },
  };
}

/** What one slot's listings page by. */
export interface PagerSpec<K> {
  codec: CursorCodec<K>;
  /** Items per page when the caller names no limit. */
  defaultLimit: number;
  /** The most items one page returns, whatever the caller asks (the routes' schemas use it too). */
  maxLimit: number;
  /** What hands the cursors out, for the refusal of a foreign one: `beads store`, `event sink`. */
  issuer: string;
}

/** Page sizes, cursors and the page shape of one slot's listings. */
export interface CursorPager<K> {
  readonly defaultLimit: number;
  readonly maxLimit: number;
  /** The page size: the default when absent, at most the maximum; anything but a positive integer is an input error. */
  pageLimit(limit: number | undefined): number;
  encodeCursor(key: K): string;
  /** The key a cursor continues after (the codec's start without one); a cursor not handed out here is an input error. */
  decodeCursor(cursor: string | undefined): K;
  /**
   * The page of `rows`, which holds more than `limit` rows when another page follows (fetch
   * `limit + 1`): the first `limit`, and then a cursor after the last of them.
   */
  page<T>(rows: readonly T[], limit: number, keyOf: (row: T) => K): Page<T>;
}

/** A pager for `spec`. Failures are AdapterInputError (400 ABX_ERR_VALIDATION). */
export function cursorPager<K>(spec: PagerSpec<K>): CursorPager<K> {
  const { codec, defaultLimit, maxLimit } = spec;
  return {
    defaultLimit,
    maxLimit,
    pageLimit(limit) {
      if (limit === undefined) return defaultLimit;
      if (!Number.isInteger(limit) || limit < 1)
        throw new AdapterInputError(`limit must be a positive integer, not ${String(limit)} (at most ${maxLimit} are returned)`);
      return Math.min(limit, maxLimit);
    },
    encodeCursor: (key) => codec.encode(key),
    decodeCursor(cursor) {
      if (cursor === undefined) return codec.start;
      const key = codec.decode(cursor);
      if (key === undefined) throw new AdapterInputError(`cursor is not one this ${spec.issuer} handed out`);
      return key;
    },
    page(rows, limit, keyOf) {
      if (rows.length <= limit) return { items: rows.slice() };
      const items = rows.slice(0, limit);
      return { items, nextCursor: codec.encode(keyOf(items[limit - 1]!)) };
    },
  };
}

/** `page` with each item mapped by `fn` (the cursor is kept). */
export function mapPage<T, U>(page: Page<T>, fn: (item: T) => U): Page<U> {
  const items = page.items.map(fn);
  return page.nextCursor === undefined ? { items } : { items, nextCursor: page.nextCursor };
}

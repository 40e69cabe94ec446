// Reading an event log: stream the durable lines of its segments, skipping segments out of range.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Page } from '../adapter.js';
import { AdapterInputError } from '../../adapter-errors.js';
import { cursorPager, seqCursor } from '../cursor-pager.js';
import type { EventFilter, StoredEvent } from './events-adapter.js';
import { decodeLine, toStored } from './hash-chain.js';
import type { Segment } from './log-recovery.js';

/** Paging of event queries: `base64url("seq:<n>")` cursors, 100 per page, at most 1,000. */
export const EVENTS_PAGER = cursorPager({ codec: seqCursor('seq'), defaultLimit: 100, maxLimit: 1000, issuer: 'event sink' });

/** Does `e` pass the kind and time filter? */
export function matches(e: StoredEvent, filter: EventFilter): boolean {
  if (filter.kinds?.length && !filter.kinds.includes(e.kind)) return false;
  if (filter.since !== undefined && e.time < filter.since) return false;
  if (filter.until !== undefined && e.time > filter.until) return false;
  return true;
}

/** Check and normalise ISO-8601 bounds, so string comparison with stored times is exact. */
export function normaliseFilter<F extends EventFilter>(filter: F): F {
  const out = { ...filter };
  for (const key of ['since', 'until'] as const) {
    const value = filter[key];
    if (value === undefined) continue;
    const t = Date.parse(value);
    if (Number.isNaN(t)) throw new AdapterInputError(`${key} is not an ISO-8601 time: ${JSON.stringify(value).slice(0, 64)}`);
    out[key] = new Date(t).toISOString();
  }
  return out;
}

/**
 * One page of events after `afterSeq` matching `filter`, oldest first. Times rise with seq, so a
 * segment is skipped when the next one starts at or before the cursor or before `since`, and
 * reading stops at the first event after `until`.
 */
export async function readPage(segments: readonly Segment[], filter: EventFilter, afterSeq: number, limit: number): Promise<Page<StoredEvent>> {
  const items: StoredEvent[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const next = segments[i + 1];
    if (seg.firstSeq === undefined || seg.end === 0) continue;
    if (next?.firstSeq !== undefined && next.firstSeq - 1 <= afterSeq) continue;
    if (filter.since !== undefined && next?.firstTime !== undefined && next.firstTime < filter.since) continue;
    if (filter.until !== undefined && seg.firstTime !== undefined && seg.firstTime > filter.until) break;
    const done = await scanSegment(seg, (e) => {
      if (e.seq <= afterSeq) return 'skip';
      if (filter.until !== undefined && e.time > filter.until) return 'stop';
      if (matches(e, filter)) items.push(e);
      // One more than asked tells whether a next page exists.
      return items.length > limit ? 'stop' : 'skip';
    });
    if (done) break;
  }
  return EVENTS_PAGER.page(items, limit, (e) => e.seq);
}

/** Stream a segment's durable lines to `visit`; resolves true when `visit` stopped the scan. */
async function scanSegment(seg: Segment, visit: (e: StoredEvent) => 'skip' | 'stop'): Promise<boolean> {
  const stream = createReadStream(seg.path, { start: 0, end: seg.end - 1, encoding: 'utf8', highWaterMark: 256 * 1024 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (visit(toStored(decodeLine(line))) === 'stop') return true;
    }
    return false;
  } finally {
    lines.close();
    stream.destroy();
  }
}

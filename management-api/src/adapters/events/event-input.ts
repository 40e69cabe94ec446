// Checks on what callers append and query, shared by the events implementations.
import type { PageRequest } from '../adapter.js';
import { AdapterInputError } from '../../adapter-errors.js';
import type { EventFilter, NewEvent } from './events-adapter.js';
import { EVENTS_PAGER, normaliseFilter } from './log-reader.js';

/** Longest kind and source accepted. */
export const MAX_NAME_LENGTH = 128;

/**
 * Refuse events the routes' schema would refuse, so direct callers of the slot (agents in
 * process, tests) get the same answer as HTTP callers.
 */
export function checkEvents(events: readonly NewEvent[]): void {
  if (!Array.isArray(events)) throw new AdapterInputError('append takes an array of events');
  events.forEach((e, i) => {
    if (!e || typeof e !== 'object') throw new AdapterInputError(`event ${i} is not an object`);
    for (const key of ['kind', 'source'] as const) {
      const v = e[key];
      if (typeof v !== 'string' || v.length === 0 || v.length > MAX_NAME_LENGTH)
        throw new AdapterInputError(`event ${i}: ${key} must be a string of 1 to ${MAX_NAME_LENGTH} characters`);
    }
    if (e.data !== undefined && (e.data === null || typeof e.data !== 'object' || Array.isArray(e.data)))
      throw new AdapterInputError(`event ${i}: data must be an object`);
  });
}

/** The filter with times normalised, and the page size (EVENTS_PAGER's rules). */
export function checkQuery(query: EventFilter & PageRequest): { filter: EventFilter; limit: number; cursor?: string } {
  const { limit, cursor, ...filter } = query;
  return { filter: normaliseFilter(filter), limit: EVENTS_PAGER.pageLimit(limit), ...(cursor !== undefined ? { cursor } : {}) };
}

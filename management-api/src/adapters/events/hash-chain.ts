// The line format of the event log: one JSON object per line, each hash-chained to the one before.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../manifest/canonical-json.js';
import type { StoredEvent } from './events-adapter.js';

/** The `prev` of the very first line of a log: 64 zeros. */
export const GENESIS_HASH = '0'.repeat(64);

/** A stored event as written to disk, with its link to the previous line and its own hash. */
export interface ChainedEvent extends StoredEvent {
  /** Hash of the previous line ({@link GENESIS_HASH} for the first). */
  prev: string;
  /** sha256 over `prev` and the canonical form of the event. */
  hash: string;
}

/** The position of a chain: the last sequence number and hash written. */
export interface ChainHead {
  seq: number;
  hash: string;
  /** Time of the last event (ISO-8601), so times never go backwards across restarts. */
  time: string;
}

/** The head of an empty log. */
export const EMPTY_HEAD: ChainHead = { seq: 0, hash: GENESIS_HASH, time: '' };

/**
 * sha256 over the previous hash, a newline and the canonical JSON (sorted keys) of the event's own
 * fields. Canonical form makes the hash independent of key order, so a reader can recompute it
 * from the parsed line.
 */
export function eventHash(prev: string, event: StoredEvent): string {
  const { id, seq, time, kind, source, data } = event;
  return createHash('sha256').update(prev).update('\n').update(canonicalJson({ id, seq, time, kind, source, data })).digest('hex');
}

/** Chain `event` after `prev` and render its line (with the trailing newline). */
export function encodeLine(prev: string, event: StoredEvent): { line: string; hash: string } {
  const hash = eventHash(prev, event);
  const { id, seq, time, kind, source, data } = event;
  return { line: `${JSON.stringify({ seq, id, time, kind, source, data, prev, hash })}\n`, hash };
}

/** A line that is not a well-formed chained event. */
export class MalformedLineError extends Error {
  override name = 'MalformedLineError';
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Parse one line (without its newline) into a chained event; throws MalformedLineError. */
export function decodeLine(text: string): ChainedEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MalformedLineError('not valid JSON');
  }
  const e = value as Partial<ChainedEvent> | null;
  if (!e || typeof e !== 'object' || Array.isArray(e)) throw new MalformedLineError('not a JSON object');
  if (!Number.isSafeInteger(e.seq) || (e.seq as number) < 1) throw new MalformedLineError('seq is not a positive integer');
  for (const key of ['id', 'time', 'kind', 'source'] as const) {
    if (typeof e[key] !== 'string') throw new MalformedLineError(`${key} is not a string`);
  }
  if (!e.data || typeof e.data !== 'object' || Array.isArray(e.data)) throw new MalformedLineError('data is not an object');
  if (typeof e.prev !== 'string' || !HEX64.test(e.prev)) throw new MalformedLineError('prev is not a sha256 hex digest');
  if (typeof e.hash !== 'string' || !HEX64.test(e.hash)) throw new MalformedLineError('hash is not a sha256 hex digest');
  return e as ChainedEvent;
}

/** The public form of a chained event (what callers of the slot see). */
export function toStored(e: ChainedEvent): StoredEvent {
  return { id: e.id, seq: e.seq, time: e.time, kind: e.kind, source: e.source, data: e.data };
}

/**
 * Check one parsed line against the head before it. Returns why it does not follow (a reason
 * naming the broken property), or undefined when it does.
 */
export function chainBreak(before: ChainHead, e: ChainedEvent): string | undefined {
  if (eventHash(e.prev, e) !== e.hash) return 'hash mismatch: the line was edited';
  if (e.prev !== before.hash) return `prev does not match the hash of the line before (seq ${before.seq}): a line was removed, inserted or reordered`;
  if (e.seq !== before.seq + 1) return `seq ${e.seq} does not follow ${before.seq}`;
  return undefined;
}

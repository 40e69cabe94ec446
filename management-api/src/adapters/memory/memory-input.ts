// Validation shared by every memory implementation: names, vectors, k, metadata, and the paging of listings.
import { randomUUID } from 'node:crypto';
import { AdapterInputError } from '../../adapter-errors.js';
import { cursorPager, seqCursor } from '../cursor-pager.js';

/** Namespaces are path segments of the API and names of files: letters, digits, `.`, `_`, `-`. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Ids appear in URLs too, so the same alphabet plus `:` (for caller-chosen composite ids). */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

/** The largest top-k a search answers; larger requests are refused rather than silently cut. */
export const MAX_K = 100;

/** Metadata is stored as JSON; this bound keeps one record from bloating the store. */
export const MAX_METADATA_BYTES = 16_384;

/** Text is stored verbatim; the bound matches the route's body limit. */
export const MAX_TEXT_CHARS = 65_536;

/** Refuse a namespace that cannot be a path segment or a file name. */
export function checkNamespace(namespace: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE_PATTERN.test(namespace)) {
    throw new AdapterInputError(
      `namespace "${String(namespace).slice(0, 80)}" is invalid: use 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return namespace;
}

/** The caller's id, checked, or a fresh UUID. */
export function checkId(id: string | undefined): string {
  if (id === undefined) return randomUUID();
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
    throw new AdapterInputError(`id "${String(id).slice(0, 80)}" is invalid: use 1-128 letters, digits, ".", "_", ":" or "-", starting with a letter or digit`);
  }
  return id;
}

/** Text must be a string within the bound (it may be empty when a vector is given). */
export function checkText(text: unknown): string {
  if (typeof text !== 'string') throw new AdapterInputError('text must be a string');
  if (text.length > MAX_TEXT_CHARS) throw new AdapterInputError(`text is ${text.length} characters; at most ${MAX_TEXT_CHARS} are stored`);
  return text;
}

/** Metadata must be a plain JSON object within {@link MAX_METADATA_BYTES}; returns its JSON. */
export function checkMetadata(metadata: unknown): string {
  if (metadata === undefined) return '{}';
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw new AdapterInputError('metadata must be a JSON object');
  const json = JSON.stringify(metadata);
  if (Buffer.byteLength(json) > MAX_METADATA_BYTES) throw new AdapterInputError(`metadata is larger than ${MAX_METADATA_BYTES} bytes of JSON`);
  return json;
}

/**
 * A caller's vector as Float32Array, refused unless it has exactly `dimension` finite components
 * and is not all zeros (cosine similarity is undefined for a zero vector).
 */
export function checkVector(vector: Float32Array | readonly number[], dimension: number): Float32Array {
  if (!(vector instanceof Float32Array) && !Array.isArray(vector)) throw new AdapterInputError('vector must be an array of numbers');
  if (vector.length !== dimension) {
    throw new AdapterInputError(`vector has ${vector.length} dimensions but this memory stores ${dimension} (integrations.memory.dimension)`);
  }
  const out = Float32Array.from(vector as ArrayLike<number>);
  let nonZero = false;
  for (let i = 0; i < out.length; i++) {
    const x = out[i]!;
    if (!Number.isFinite(x)) throw new AdapterInputError(`vector component ${i} is not a finite number`);
    if (x !== 0) nonZero = true;
  }
  if (!nonZero) throw new AdapterInputError('vector is all zeros; cosine similarity needs a non-zero vector');
  return out;
}

/** k must be an integer from 1 to {@link MAX_K}. */
export function checkK(k: unknown): number {
  if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > MAX_K) throw new AdapterInputError(`k must be an integer from 1 to ${MAX_K}`);
  return k;
}

/**
 * Paging of memory listings: `base64url("m1:<seq>")` cursors (the insertion sequence of the last
 * item, stable under concurrent inserts and deletes), 50 per page, at most 500.
 */
export const MEMORY_PAGER = cursorPager({ codec: seqCursor('m1'), defaultLimit: 50, maxLimit: 500, issuer: 'memory store' });

/** The page size of a listing, its cursors: {@link MEMORY_PAGER}'s, by the names both implementations use. */
export const { pageLimit, encodeCursor, decodeCursor } = MEMORY_PAGER;

/** A copy of `v` scaled to unit length (callers have refused zero vectors). */
export function normalized(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}

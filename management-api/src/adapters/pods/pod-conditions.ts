// HTTP precondition semantics (If-Match / If-None-Match) and content-type checks shared by the pods implementations.
import { AdapterInputError, AdapterPreconditionError } from '../../adapter-errors.js';
import type { PodConditions } from './pods-adapter.js';
import type { PodPath } from './pod-path.js';

/**
 * Apply RFC 9110 §13.1 to a write or delete of `p` whose current state is `current` (undefined
 * when absent): `If-Match` needs the resource to exist with exactly that strong ETag (`*` matches
 * any existing one); `If-None-Match: *` needs it to be absent. Failing either rejects with
 * AdapterPreconditionError.
 */
export function checkConditions(p: PodPath, current: { etag: string } | undefined, conditions: PodConditions): void {
  const { ifMatch, ifNoneMatch } = conditions;
  if (ifMatch !== undefined) {
    if (!current) throw new AdapterPreconditionError(`If-Match ${ifMatch} failed: "${p.path}" does not exist`);
    if (ifMatch !== '*' && !etagList(ifMatch).includes(current.etag))
      throw new AdapterPreconditionError(`If-Match ${ifMatch} failed: the current ETag of "${p.path}" is ${current.etag}`);
  }
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch !== '*') throw new AdapterInputError('If-None-Match supports only "*" (create only if absent)');
    if (current) throw new AdapterPreconditionError(`If-None-Match * failed: "${p.path}" already exists`);
  }
}

/**
 * The strong ETags of an If-Match value (`"a", "b"`). Weak ones (`W/"…"`) never match: If-Match
 * uses the strong comparison.
 */
export function etagList(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => /^"[^"]*"$/.test(t));
}

// type/subtype with optional parameters; no line breaks or control characters (they would
// end up in headers and sidecars).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the parameters must not hold control characters, which is what this range refuses
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;\s*[^\u0000-\u001f\u007f]*)?$/;

/** Refuse a content type that is not a media type (`text/plain; charset=utf-8`). */
export function checkContentType(contentType: string): void {
  if (typeof contentType !== 'string' || contentType.length > 255 || !MEDIA_TYPE.test(contentType)) {
    throw new AdapterInputError(`content type ${JSON.stringify(contentType)} is not a media type like "text/plain"`);
  }
}

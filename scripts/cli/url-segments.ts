// What a user types that goes into a URL's path (an id, a workspace or snapshot path): checked here, before anything is sent.
import { parseFilePath } from '../../management-api/src/workspace-files/file-path.js';
import { encodePathSegment } from '../../management-api/src/client/encoding.js';
import { UserError } from './cli-errors.js';
import { SNAPSHOT_ID } from '../../management-api/src/grammar/snapshot-id.js';

/**
 * `id` as one segment of a URL's path, percent-encoded. `.` and `..` are refused (exit 2): they are
 * the only values encoding leaves as dot segments, which fetch resolves, so the request would
 * reach another route (`snapshot show ..` asking for /v1/).
 */
export function idSegment(id: string, what: string): string {
  if (id === '.' || id === '..') throw new UserError(`"${id}" is not ${what}`, 2);
  return encodeURIComponent(id);
}

/**
 * A snapshot id, checked before anything is sent: one not of the form (snp_ and 12 url-safe
 * characters; ids are never abbreviated) is bad usage (exit 2), not a refusal by the box.
 */
export function snapshotId(id: string): string {
  if (!SNAPSHOT_ID.test(id))
    throw new UserError(`"${id}" is not a snapshot id: one is snp_ and 12 letters, digits, - or _ (agentbox snapshot ls lists them)`, 2);
  return id;
}

/**
 * The segments of `raw`, a path in a workspace or a snapshot as a shell user writes it: a leading
 * `/`, `.` segments and repeated slashes dropped (`./src`, `src/.`). A `..` is refused with the
 * files API's own words, by the caller's exit code: it would leave the tree, and in a URL fetch
 * would resolve it, reaching another route.
 */
export function pathSegments(raw: string, shown: string, exitCode: number): string[] {
  try {
    return parseFilePath(
      raw
        .split('/')
        .filter((segment) => segment !== '' && segment !== '.')
        .join('/'),
    );
  } catch (err) {
    throw new UserError(`${shown}: ${(err as Error).message}`, exitCode);
  }
}

/** `segments` as the path below a files root (`/a/b`, or '' for the root), each percent-encoded as its bytes. */
export function encodedBelow(segments: readonly string[]): string {
  const below = segments.map(encodePathSegment).join('/');
  return below ? `/${below}` : '';
}

// The provider broker's path check: the real key goes only to a URL under base_url's path.
//
// The agent writes the path, and the URL parser (and, after it, the provider's own server)
// resolves `..`, `%2e%2e`, `\` and `..;` in ways that can climb out of base_url's path to other
// endpoints on the provider's origin. Rather than predict each parser, the broker refuses every
// path that some parser could read as a different path: dot segments (raw, encoded or with `;`
// parameters), encoded slashes, backslashes, encoded percents (a second decoding would reveal
// any of these), and empty segments. What is left is then checked again after the URL parser
// has normalised it.
import { ApiError } from '../errors.js';

// `%2e` `.`, `%2f` `/`, `%5c` `\`, `%25` `%` (double encoding), in either case.
const ENCODED_SEPARATOR = /%(2e|2f|5c|25)/i;
// A backslash, a fragment mark and anything below or at space (controls) or DEL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters in a path is the point.
const FORBIDDEN_CHAR = /[\\#\u0000-\u0020\u007f]/;

/** The provider URL for `rest` (what follows /v1/providers/<name>, query included), or a 400 ABX_ERR_PROVIDER_PATH. */
export function brokerTarget(baseUrl: string, rest: string): string {
  const queryAt = rest.indexOf('?');
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const query = queryAt < 0 ? '' : rest.slice(queryAt);
  const why = unsafePath(path) ?? (FORBIDDEN_CHAR.test(query) ? 'a control character, space, backslash or # in the query' : undefined);
  if (why) throw refusal(why);
  const base = new URL(baseUrl);
  // `/v1/` and `/v1` are the same prefix; `/v1` must not admit `/v1evil`, so the prefix ends in `/`.
  const prefix = `${base.pathname.replace(/\/+$/, '')}/`;
  const target = new URL(baseUrl.replace(/\/+$/, '') + path + query);
  const pathname = target.pathname.endsWith('/') ? target.pathname : `${target.pathname}/`;
  // The same check on the URL that will be sent, after the parser's normalisation.
  if (target.origin !== base.origin || !pathname.startsWith(prefix)) throw refusal('it leaves the provider base_url path');
  return target.href;
}

/** Why an agent-written path could resolve outside where it seems to point, or undefined when it cannot. */
export function unsafePath(path: string): string | undefined {
  if (path !== '' && !path.startsWith('/')) return 'it does not start with /';
  if (FORBIDDEN_CHAR.test(path)) return 'a control character, space, backslash or # in the path';
  if (ENCODED_SEPARATOR.test(path)) return 'an encoded dot, slash, backslash or percent (%2e, %2f, %5c, %25) in the path';
  const segments = path.split('/').slice(1);
  for (const [i, segment] of segments.entries()) {
    // `//` reads as a protocol-relative host to some URL joiners; only a final `/` may be empty.
    if (segment === '' && i < segments.length - 1) return 'an empty segment (//) in the path';
    // Some servers drop `;params` from a segment before resolving it (`..;x` is `..` there).
    let bare: string;
    try {
      bare = decodeURIComponent(segment).split(';')[0]!;
    } catch {
      return 'a malformed percent-encoding in the path';
    }
    if (bare === '.' || bare === '..') return 'a dot segment (. or ..) in the path';
  }
  return undefined;
}

function refusal(why: string): ApiError {
  return new ApiError('ABX_ERR_PROVIDER_PATH', `the broker forwards only paths under the provider base_url: ${why}`);
}

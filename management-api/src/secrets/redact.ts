// Secret scrubbing for logs and traces: known secret-bearing keys, and credentials embedded in
// strings — URL userinfo, credential-named query parameters, password pairs, bearer tokens.

/** Replacement text for anything redacted. */
export const CENSOR = '[Redacted]';

/**
 * Key paths pino removes before serialising (fast-redact syntax). Authorization and cookies of
 * requests, API keys, tokens, passwords and connection strings, at the top level and one below.
 */
export const REDACT_PATHS: string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  ...['apiKey', 'api_key', 'key', 'token', 'password', 'secret', 'nsec', 'secretKey', 'connectionString', 'connection_string', 'dsn', 'authorization'].flatMap(
    (k) => [k, `*.${k}`],
  ),
];

// scheme://user:password@host → the password is replaced, the rest is kept for debugging.
const urlCredentials = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*):([^\s@/]+)@/gi;
// libpq key=value strings: password=... (quoted or not).
const keyValuePassword = /\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;]+)/gi;
// Bearer tokens quoted in messages.
const bearer = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;
// NIP-19 secret keys (nsec1…) and NIP-98 tokens (a signed event, valid for a minute) quoted anywhere.
const nsec = /\bnsec1[02-9ac-hj-np-z]{8,}/g;
const nostrToken = /\b(Nostr\s+)[A-Za-z0-9+/=]{16,}/g;

// A query or fragment parameter, in a full URL or a bare path (`/v1/beads?api_key=…`): the name
// and value stop where the URL's syntax or the surrounding text (quotes, brackets, blanks) does.
const urlParameter = /([?&;#])([^=&#;?\s"'<>]+)=([^&#;\s"'<>]+)/g;

// Names are compared lower-cased without separators, so api_key, api-key, apiKey, X-Amz-Signature
// and access_token all match; a suffix match catches the many vendor spellings (sas `sig`,
// `client_secret`, `refresh_token`, `subscription-key`). A harmless parameter that happens to end
// like one (`monkey`) is redacted too: a log line losing a value is cheaper than a leaked key.
const credentialName = /(?:key|token|secret|password|passwd|pwd|pass|signature|sig|credential|credentials|auth|authorization|session|sessionid|jwt)$/;

/** Whether a URL parameter named `name` (possibly percent-encoded) carries a credential. */
export function isCredentialParameter(name: string): boolean {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // Not valid percent-encoding: judge the name as written.
  }
  return credentialName.test(decoded.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/**
 * `url` (absolute, or a path with a query such as a request's URL) with its credentials replaced
 * by {@link CENSOR}: the password of `user:password@` and the value of every credential-named
 * query or fragment parameter. Everything else is kept for debugging.
 */
export function scrubUrl(url: string): string {
  let out = url.includes('@') ? url.replace(urlCredentials, `$1:${CENSOR}@`) : url;
  if (out.includes('=')) out = out.replace(urlParameter, (all, sep: string, name: string) => (isCredentialParameter(name) ? `${sep}${name}=${CENSOR}` : all));
  return out;
}

/** `text` with embedded credentials replaced by {@link CENSOR}: URL credentials ({@link scrubUrl}), `password=` pairs, bearer and NIP-98 tokens, nsec keys. */
export function scrubSecrets(text: string): string {
  // Most log strings hold none of these: skip the regular expressions for them.
  if (!text.includes('://') && !text.includes('=') && !/pass|pwd|bearer|nsec1|nostr/i.test(text)) return text;
  return scrubUrl(text).replace(keyValuePassword, `$1$2${CENSOR}`).replace(bearer, `$1${CENSOR}`).replace(nsec, CENSOR).replace(nostrToken, `$1${CENSOR}`);
}

/**
 * A copy of `value` with strings scrubbed, descending a few levels (log objects are shallow;
 * the bound keeps a pathological object from making logging expensive).
 */
export function scrubValue(value: unknown, depth = 3): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth === 0 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, depth - 1));
  // Only plain data is copied: errors and framework objects (requests) have serializers of
  // their own, which need the original object.
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = scrubValue(v, depth - 1);
  return out;
}

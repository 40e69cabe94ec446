// Secret scrubbing for logs: known secret-bearing keys, and credentials embedded in strings.

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
  ...['apiKey', 'api_key', 'key', 'token', 'password', 'secret', 'connectionString', 'connection_string', 'dsn', 'authorization'].flatMap((k) => [k, `*.${k}`]),
];

// scheme://user:password@host → the password is replaced, the rest is kept for debugging.
const urlCredentials = /([a-z][a-z0-9+.-]*:\/\/[^\s:@/]*):([^\s@/]+)@/gi;
// libpq key=value strings: password=... (quoted or not).
const keyValuePassword = /\b(password|passwd|pwd)(\s*=\s*)('[^']*'|"[^"]*"|[^\s;]+)/gi;
// Bearer tokens quoted in messages.
const bearer = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;

/** `text` with embedded credentials replaced by {@link CENSOR}. */
export function scrubSecrets(text: string): string {
  if (!text.includes('://') && !/pass|pwd|bearer/i.test(text)) return text;
  return text.replace(urlCredentials, `$1:${CENSOR}@`).replace(keyValuePassword, `$1$2${CENSOR}`).replace(bearer, `$1${CENSOR}`);
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

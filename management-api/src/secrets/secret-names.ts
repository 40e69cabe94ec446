// Secret names and secret-looking values: which variable names hold secrets, which values refer
// to another variable instead of holding one, and which values look like credentials. Shared by
// the manifest rules and the agent environment filter.

/** Last words that make a variable name hold a secret (`GITHUB_TOKEN`, `DB_PASSWORD`). */
const SECRET_LAST_WORDS = new Set(['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'PASSPHRASE', 'CREDENTIAL', 'CREDENTIALS', 'APIKEY']);
/** Last two words that do (`OPENAI_API_KEY`); a bare `KEY` does not (`CACHE_KEY`, `SORT_KEY`). */
const SECRET_LAST_PAIRS = new Set(['API_KEY', 'PRIVATE_KEY', 'SECRET_KEY', 'ACCESS_KEY', 'SIGNING_KEY', 'AUTH_KEY']);

/**
 * True when a variable name says it holds a secret. Only the last word(s) count, so names of
 * places where a secret is kept (`GITHUB_TOKEN_FILE`, `TOKEN_ENV`) and counts (`MAX_TOKENS`) are not.
 */
export function isSecretName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter(Boolean);
  const last = words.at(-1) ?? '';
  return SECRET_LAST_WORDS.has(last) || SECRET_LAST_PAIRS.has(words.slice(-2).join('_'));
}

/** True for values that refer to another variable (`$X`, `${X}`, supervisord's `%(ENV_X)s`) instead of holding one. */
export function isReference(value: string): boolean {
  return /^(\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|%\(ENV_[A-Za-z_]\w*\)s)$/.test(value);
}

/** True when a programme variable holds a secret in the clear: a secret name with a literal value (E004; E005 skips these). */
export function isInlineSecretVariable(name: string, value: string): boolean {
  return isSecretName(name) && value !== '' && !isReference(value);
}

/** Shapes of well-known credentials, with a label for the message. */
const KEY_SHAPES: ReadonlyArray<{ label: string; re: RegExp }> = [
  { label: 'an API key (sk-…)', re: /^sk-[A-Za-z0-9_-]{20,}$/ },
  { label: 'a GitHub token', re: /^(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})$/ },
  { label: 'a GitLab token', re: /^glpat-[A-Za-z0-9_-]{20,}$/ },
  { label: 'a Slack token', re: /^xox[abposr]-[A-Za-z0-9-]{10,}$/ },
  { label: 'an AWS access key id', re: /^(AKIA|ASIA)[0-9A-Z]{16}$/ },
  { label: 'a Google API key', re: /^AIza[0-9A-Za-z_-]{35}$/ },
  { label: 'a Nostr private key (nsec)', re: /^nsec1[02-9ac-hj-np-z]{58}$/ },
  { label: 'a Telegram bot token', re: /^\d{8,10}:[A-Za-z0-9_-]{35}$/ },
  { label: 'a JSON web token', re: /^eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/ },
];

/** Shannon entropy of `text` in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/** Share of neighbouring characters that change class (lower, upper, digit, other). */
function classChanges(text: string): number {
  const cls = (ch: string) => (/[a-z]/.test(ch) ? 0 : /[A-Z]/.test(ch) ? 1 : /[0-9]/.test(ch) ? 2 : 3);
  let changes = 0;
  for (let i = 1; i < text.length; i++) if (cls(text[i - 1]!) !== cls(text[i]!)) changes++;
  return changes / Math.max(1, text.length - 1);
}

/**
 * What kind of secret `value` appears to contain, or undefined. Each word (split on blanks,
 * `=`, `,`, `;` and quotes, so `--token=…` and `Bearer …` are seen) is matched against known key
 * shapes, then against "long, mixed-case, digits, high entropy, classes changing often" — which
 * paths (leading `/`), hex digests (no upper case), variable names and CamelCase identifiers
 * (few class changes) do not meet.
 */
export function secretKind(value: string): string | undefined {
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(value)) return 'a PEM private key';
  for (const word of value.split(/[\s=,;'"]+/)) {
    const shape = KEY_SHAPES.find((k) => k.re.test(word));
    if (shape) return shape.label;
    if (
      word.length >= 32 &&
      /^[A-Za-z0-9+/_=-]+$/.test(word) &&
      !word.startsWith('/') &&
      /[a-z]/.test(word) &&
      /[A-Z]/.test(word) &&
      /[0-9].*[0-9]/.test(word) &&
      entropy(word) >= 4.3 &&
      classChanges(word) >= 0.45
    ) {
      return 'a long high-entropy string';
    }
  }
  return undefined;
}

/** A variable name in UPPER_SNAKE_CASE. */
export const UPPER_SNAKE = /^[A-Z][A-Z0-9_]*$/;

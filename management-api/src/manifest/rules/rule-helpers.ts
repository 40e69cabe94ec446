// Knowledge shared by several rules (ports, URLs, secrets, feature ↔ exception names, baseline
// paths, the programme graph), kept here once so no two rules can disagree about it.
import { posix } from 'node:path';
import type { Exception, Manifest, Program } from '../generated/manifest-types.js';
import { pointerToKeyPath, toPointer } from '../diagnostics.js';
import type { RuleFinding } from './rule.js';

/** A finding at the key named by `segments`. */
export function finding(segments: ReadonlyArray<string | number>, message: string, hint: string): RuleFinding {
  return { pointer: toPointer(segments), message, hint };
}

/** `['programs', 'web', 'port']` → `programs.web.port`, quoted the way TOML needs. */
export function keyPath(segments: ReadonlyArray<string | number>): string {
  return pointerToKeyPath(toPointer(segments));
}

/** An adapter slot name. */
export type Slot = keyof typeof SLOT_IMPLS;

/** The local and external implementation of each slot (the third is always `off`). */
export const SLOT_IMPLS = {
  beads: { local: 'local-sqlite', external: 'external-http' },
  pods: { local: 'local-fs', external: 'external-solid' },
  memory: { local: 'local-ruvector', external: 'external-pg' },
  events: { local: 'local-jsonl', external: 'external-http' },
  orchestrator: { local: 'local-procmgr', external: 'external-stdio' },
} as const;

/** The five slots, in schema order. */
export const SLOTS = Object.keys(SLOT_IMPLS) as Slot[];

/** Slots whose adapter is the external implementation. */
export function externalSlots(m: Manifest): Slot[] {
  return SLOTS.filter((s) => m.adapters[s] === SLOT_IMPLS[s].external);
}

/** Slots configured through an HTTP integration (`url`, `token_env`, `token_file`). */
export const HTTP_SLOTS = ['beads', 'pods', 'events'] as const;

/** `[programs.<name>]` entries, in manifest order. */
export function programEntries(m: Manifest): Array<[string, Program]> {
  return Object.entries(m.programs).filter((e): e is [string, Program] => e[1] !== undefined);
}

/**
 * Groups of programmes that depend on each other in a cycle (strongly connected components of
 * more than one programme; self-dependencies and unknown names are another rule's concern).
 */
export function dependencyCycles(m: Manifest): string[][] {
  const programs = new Map(programEntries(m));
  const edges = (name: string) => (programs.get(name)?.depends_on ?? []).filter((d) => d !== name && programs.has(d));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  // Tarjan's algorithm with an explicit call stack: a long depends_on chain must not overflow the JS stack.
  for (const root of programs.keys()) {
    if (index.has(root)) continue;
    const calls: Array<{ name: string; deps: string[]; at: number }> = [];
    const enter = (name: string) => {
      index.set(name, next);
      low.set(name, next++);
      stack.push(name);
      onStack.add(name);
      calls.push({ name, deps: edges(name), at: 0 });
    };
    enter(root);
    while (calls.length) {
      const frame = calls[calls.length - 1]!;
      const dep = frame.deps[frame.at++];
      if (dep !== undefined) {
        if (!index.has(dep)) enter(dep);
        else if (onStack.has(dep)) low.set(frame.name, Math.min(low.get(frame.name)!, index.get(dep)!));
        continue;
      }
      calls.pop();
      const parent = calls[calls.length - 1];
      if (parent) low.set(parent.name, Math.min(low.get(parent.name)!, low.get(frame.name)!));
      if (low.get(frame.name) !== index.get(frame.name)) continue;
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== frame.name);
      if (group.length > 1) cycles.push(group.reverse());
    }
  }
  return cycles;
}

/**
 * Names the box gives its own supervisord programmes (core and feature programmes); an operator
 * programme with one of these names would collide with them in the generated configuration.
 */
export const RESERVED_PROGRAM_NAMES: readonly string[] = [
  'bootstrap',
  'management-api',
  'seal-listener',
  'relay',
  'supervisord',
  'desktop',
  'code-server',
  'playwright',
  'telegram-mirror',
];

/** Priorities 1..99 order the box's own programmes. */
export const FIRST_OPERATOR_PRIORITY = 100;

/** One TCP port the box listens on, and the key that sets it. */
export interface PortUse {
  segments: Array<string | number>;
  port: number;
  /** How to name this use in a message, when the key alone does not say it (a feature's fixed port). */
  label?: string;
}

/**
 * The fixed ports of the features that add a listening programme (lib/features.nix; a test keeps
 * the two equal). They cannot be moved, so a key that collides with one is the one to change.
 */
export const FEATURE_PORTS = Object.freeze({ desktop: 5900, code_server: 8443, playwright: 3100 });

/** Every port the box will listen on: enabled features' fixed ports first, then api, metrics, the relay when enabled, programme ports. */
export function portUses(m: Manifest): PortUse[] {
  const uses: PortUse[] = [];
  for (const [key, port] of Object.entries(FEATURE_PORTS) as Array<[keyof typeof FEATURE_PORTS, number]>) {
    if (m.features[key]) uses.push({ segments: ['features', key], port, label: `features.${key} (its programme listens on ${port})` });
  }
  uses.push(
    { segments: ['api', 'port'], port: m.api.port },
    { segments: ['observability', 'metrics_port'], port: m.observability.metrics_port },
  );
  if (m.sovereign_mesh.relay.enabled) uses.push({ segments: ['sovereign_mesh', 'relay', 'port'], port: m.sovereign_mesh.relay.port });
  for (const [name, p] of programEntries(m)) {
    if (p.port !== 0) uses.push({ segments: ['programs', name, 'port'], port: p.port });
  }
  return uses;
}

/** One URL-valued key that is set. */
export interface UrlValue {
  segments: Array<string | number>;
  url: string;
}

/** Every non-empty URL in the manifest: integration urls, mesh.host_url, otlp_endpoint, relays. */
export function urlValues(m: Manifest): UrlValue[] {
  const out: UrlValue[] = [];
  for (const slot of HTTP_SLOTS) out.push({ segments: ['integrations', slot, 'url'], url: m.integrations[slot].url });
  out.push({ segments: ['mesh', 'host_url'], url: m.mesh.host_url });
  out.push({ segments: ['observability', 'otlp_endpoint'], url: m.observability.otlp_endpoint });
  m.sovereign_mesh.relays.forEach((url, i) => out.push({ segments: ['sovereign_mesh', 'relays', i], url }));
  return out.filter((u) => u.url !== '');
}

/** The parsed URL, or undefined when it cannot be parsed. */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** True for names and addresses that stay on this machine (localhost, 127/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === '::1' || h === '::ffff:7f00:1';
}

/** True for addresses that listen on every interface. */
export function isWildcardAddress(address: string): boolean {
  const a = address.replace(/^\[(.*)\]$/, '$1');
  return a === '0.0.0.0' || a === '::' || a === '0:0:0:0:0:0:0:0';
}

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

/** A `[security.exceptions.<name>]` key. */
export type ExceptionName = keyof Manifest['security']['exceptions'];

/** A feature setting and the exception it needs. */
export interface FeatureNeed {
  segments: Array<string | number>;
  /** How the setting reads in TOML, e.g. `features.gpu = "cuda"`. */
  setting: string;
  exception: ExceptionName;
  enabled: boolean;
}

/** Every feature that needs an exception, whether it is on, and which exception it needs. */
export function featureNeeds(m: Manifest): FeatureNeed[] {
  const f = m.features;
  const flag = (key: 'desktop' | 'code_server' | 'playwright' | 'gaussian_splatting' | 'telegram_mirror', exception: ExceptionName): FeatureNeed => ({
    segments: ['features', key],
    setting: `features.${key} = true`,
    exception,
    enabled: f[key],
  });
  return [
    flag('desktop', 'desktop'),
    flag('code_server', 'code-server'),
    flag('playwright', 'playwright'),
    flag('gaussian_splatting', 'gaussian-splatting'),
    flag('telegram_mirror', 'telegram-mirror'),
    { segments: ['features', 'gpu'], setting: 'features.gpu = "rocm"', exception: 'gpu-rocm', enabled: f.gpu === 'rocm' },
    { segments: ['features', 'gpu'], setting: 'features.gpu = "cuda"', exception: 'gpu-cuda', enabled: f.gpu === 'cuda' },
  ];
}

/** `[security.exceptions.<name>]` entries that are declared, in manifest order. */
export function exceptionEntries(m: Manifest): Array<[ExceptionName, Exception]> {
  return Object.entries(m.security.exceptions).filter((e): e is [ExceptionName, Exception] => e[1] !== undefined);
}

/** Paths the hardened baseline mounts or owns; an exception may add beside them, never over them. */
export const BASELINE_PATHS: readonly string[] = ['/', '/run', '/run/agentbox', '/var/lib/agentbox', '/tmp', '/var/log', '/workspace', '/etc', '/usr', '/nix'];

/** The baseline path a mount at `containerPath` would hide (the path itself or one below it), if any. */
export function shadowedBaselinePath(containerPath: string): string | undefined {
  const p = posix.normalize(containerPath).replace(/(.)\/+$/, '$1');
  return BASELINE_PATHS.find((b) => b === p) ?? BASELINE_PATHS.find((b) => p === '/' || b.startsWith(p + '/'));
}

/** A volume `host:container[:mode]`, split; undefined when it has not that shape. */
export function parseVolume(spec: string): { host: string; container: string; mode?: string } | undefined {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) return undefined;
  const [host = '', container = '', mode] = parts;
  return mode === undefined ? { host, container } : { host, container, mode };
}

/** The container path of a tmpfs entry (`/dev/shm` or `/dev/shm:size=1g`). */
export function tmpfsPath(spec: string): string {
  return spec.split(':')[0] ?? spec;
}

/** `4g` → bytes; a bare number is bytes (the unit letters follow Docker's). */
export function memoryBytes(limit: string): number {
  const match = /^([0-9]+)([kmg]?)$/.exec(limit);
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match?.[2] ?? ''] ?? 1;
  return Number(match?.[1] ?? 0) * scale;
}

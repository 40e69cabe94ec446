// Compile [policy] once per manifest: each rule's matchers and rank, indexed by action kind and by its key field (exact host and suffix for egress), and a version digest.
import { createHash } from 'node:crypto';
import { compileGlob, type Glob } from './glob.js';
import { hostLiteral, hostMatches, hostPatternProblem, parseHostPattern, type CanonicalHost, type HostPattern } from './host-pattern.js';
import { ACTION_KINDS, type ActionKind, type Autonomy, type PolicyDecision, type PolicyRule, type PolicySection, type Verdict } from './policy-types.js';
import { FIELDS_BY_KIND, rankOf, type RuleField } from './rule-fields.js';

/** An action with its fields in the form rules compare (see prepare.ts). */
export interface PreparedAction {
  kind: ActionKind;
  agent?: string;
  command?: string;
  /** The command's last path segment. */
  commandBase?: string;
  args?: readonly string[];
  cwd?: string;
  /** The profile a spawn is started from; absent for an ad-hoc spawn. */
  profile?: string;
  host?: CanonicalHost;
  port?: number;
  method?: string;
  path?: string;
  provider?: string;
}

/** One compiled rule. */
export interface CompiledRule {
  index: number;
  id?: string;
  kind: ActionKind;
  decision: Verdict;
  /** Higher decides (rule-fields.ts rankOf). */
  rank: number;
  /** How many fields it constrains, and their literal characters. */
  fields: number;
  literal: number;
  /** Its host pattern, for rules of egress and egress-change (`any` when it has none). */
  host: HostPattern;
  /** `field=pattern` for each constraining field. */
  shown: readonly string[];
  /** Where the index files it: under an exact key or a suffix, or undefined (its key field is a pattern or absent). */
  indexKey?: { map: 'exact' | 'suffix'; key: string };
  test(action: PreparedAction): boolean;
  /** The decision this rule gives, made once. */
  verdict: PolicyDecision;
}

/** Rules of one kind, by the key they can be found under; each list in rank order, highest first. */
export interface KindIndex {
  /** Egress: canonical host or address, or `port:<n>` for a rule on any host and one port. Provider: the provider. Spawn: `b:<last segment>` or `f:<command>`. */
  exact: Map<string, CompiledRule[]>;
  /** Egress and egress-change: `*.suffix` rules by suffix. */
  suffix: Map<string, CompiledRule[]>;
  /** Rules whose key field is a pattern or absent. */
  rest: CompiledRule[];
}

/** A compiled policy: pure data, shared by every decision until the manifest changes. */
export interface CompiledPolicy {
  version: string;
  default: Verdict;
  autonomy: Autonomy;
  /** Every rule in manifest order (the naive scan of the benchmark reads this). */
  rules: readonly CompiledRule[];
  index: Readonly<Record<ActionKind, KindIndex>>;
  /** The decision when no rule matches, per kind. */
  defaults: Readonly<Record<ActionKind, PolicyDecision>>;
}

/** A rule the compiler cannot read (E051 reports the same in the manifest). */
export class PolicyRuleError extends Error {
  override name = 'PolicyRuleError';
}

/** Compile `section`. Throws PolicyRuleError for a rule with a field its action lacks or a malformed host (a validated manifest has neither). */
export function compilePolicy(section: Pick<PolicySection, 'default' | 'autonomy' | 'rules'>): CompiledPolicy {
  const version = `sha256:${createHash('sha256')
    .update(JSON.stringify([section.default, section.autonomy, section.rules.map(normalRule)]))
    .digest('hex')}`;
  const rules = section.rules.map((rule, index) => compileRule(rule, index, version));
  const index = Object.fromEntries(ACTION_KINDS.map((kind) => [kind, indexRules(rules.filter((r) => r.kind === kind))])) as Record<ActionKind, KindIndex>;
  const defaultOf = (kind: ActionKind): PolicyDecision =>
    Object.freeze({ action: kind, decision: section.default, rule: null, matched: [], reason: 'no rule matches', version });
  const defaults = Object.fromEntries(ACTION_KINDS.map((kind) => [kind, defaultOf(kind)])) as Record<ActionKind, PolicyDecision>;
  return { version, default: section.default, autonomy: section.autonomy, rules, index, defaults };
}

/** The rule with its keys in one order, absent fields left out: what the version digests. */
function normalRule(rule: PolicyRule): unknown[] {
  const r = rule as unknown as Record<string, unknown>;
  return ['id', 'action', 'decision', 'agent', 'command', 'args', 'cwd', 'profile', 'host', 'port', 'method', 'path', 'provider'].map((k) =>
    r[k] === undefined ? null : r[k],
  );
}

function compileRule(rule: PolicyRule, index: number, version: string): CompiledRule {
  const where = `policy.rules[${index}]`;
  const allowed = FIELDS_BY_KIND[rule.action];
  const tests: Array<(a: PreparedAction) => boolean> = [];
  const shown: string[] = [];
  let literal = 0;
  let host: HostPattern = { kind: 'any' };
  const field = (name: RuleField, glob: Glob | undefined, read: (a: PreparedAction) => string | undefined): void => {
    if (glob === undefined || glob.any) return;
    tests.push((a) => {
      const value = read(a);
      return value !== undefined && glob.test(value);
    });
    shown.push(`${name}=${glob.source}`);
    literal += glob.literal;
  };
  for (const name of ['agent', 'command', 'args', 'cwd', 'profile', 'host', 'port', 'method', 'path', 'provider'] as const) {
    if (rule[name] !== undefined && !allowed.includes(name))
      throw new PolicyRuleError(
        `${where}: ${rule.action.startsWith('e') ? 'an' : 'a'} ${rule.action} rule has no field ${name} (its fields: ${allowed.join(', ')})`,
      );
  }
  field('agent', globOf(rule.agent), (a) => a.agent);
  if (rule.command !== undefined) {
    const glob = compileGlob(rule.command);
    // Without a slash the pattern is about the program, however its path is written.
    field('command', glob, rule.command.includes('/') ? (a) => a.command : (a) => a.commandBase);
  }
  if (rule.args !== undefined && rule.args.length > 0) {
    const globs = rule.args.map(compileGlob);
    tests.push((a) => a.args !== undefined && a.args.length >= globs.length && globs.every((g, i) => g.test(a.args![i]!)));
    shown.push(`args=${JSON.stringify(rule.args)}`);
    literal += globs.reduce((n, g) => n + g.literal, 0);
  }
  field('cwd', globOf(rule.cwd), (a) => a.cwd);
  if (rule.profile !== undefined) {
    // Unlike other fields, `*` still constrains: it matches every spawn by profile and no ad-hoc one.
    const glob = compileGlob(rule.profile);
    tests.push((a) => a.profile !== undefined && glob.test(a.profile));
    shown.push(`profile=${rule.profile}`);
    literal += glob.literal;
  }
  if (rule.host !== undefined) {
    const problem = hostPatternProblem(rule.host);
    if (problem) throw new PolicyRuleError(`${where}.host = ${JSON.stringify(rule.host)}: ${problem}`);
    host = parseHostPattern(rule.host);
    if (host.kind !== 'any') {
      const pattern = host;
      tests.push((a) => a.host !== undefined && hostMatches(pattern, a.host));
      shown.push(`host=${rule.host}`);
      literal += hostLiteral(pattern);
    }
  }
  if (rule.port !== undefined) {
    const port = rule.port;
    tests.push((a) => a.port === port);
    shown.push(`port=${port}`);
  }
  if (rule.method !== undefined) {
    const method = rule.method;
    tests.push((a) => a.method === method);
    shown.push(`method=${method}`);
    literal += method.length;
  }
  field('path', globOf(rule.path), (a) => a.path);
  field('provider', globOf(rule.provider), (a) => a.provider);
  const fields = tests.length;
  const test =
    fields === 0
      ? () => true
      : fields === 1
        ? tests[0]!
        : (a: PreparedAction) => {
            for (const t of tests) if (!t(a)) return false;
            return true;
          };
  const deciding = rule.id !== undefined ? { index, id: rule.id } : { index };
  const reason = fields === 0 ? `the rule has no fields: it matches every ${rule.action} action` : `matched ${shown.join(', ')}`;
  const verdict: PolicyDecision = Object.freeze({
    action: rule.action,
    decision: rule.decision,
    rule: Object.freeze(deciding),
    matched: Object.freeze([...shown]),
    reason,
    version,
  });
  const indexKey = keyOf(rule, host);
  return {
    index,
    ...(rule.id !== undefined ? { id: rule.id } : {}),
    kind: rule.action,
    decision: rule.decision,
    rank: rankOf(fields, literal, rule.decision, index),
    fields,
    literal,
    host,
    shown,
    ...(indexKey ? { indexKey } : {}),
    test,
    verdict,
  };
}

function globOf(source: string | undefined): Glob | undefined {
  return source === undefined ? undefined : compileGlob(source);
}

/** The index key of a rule, or undefined when its key field is a pattern or absent. */
function keyOf(rule: PolicyRule, host: HostPattern): CompiledRule['indexKey'] {
  if (rule.action === 'egress' || rule.action === 'egress-change') {
    if (host.kind === 'exact' || host.kind === 'address') return { map: 'exact', key: host.value };
    if (host.kind === 'suffix') return { map: 'suffix', key: host.value };
    // A rule about any host but one port is found by its port.
    return rule.port !== undefined ? { map: 'exact', key: `port:${rule.port}` } : undefined;
  }
  if (rule.action === 'provider') return rule.provider !== undefined && compileGlob(rule.provider).exact ? { map: 'exact', key: rule.provider } : undefined;
  if (rule.command !== undefined && compileGlob(rule.command).exact) return { map: 'exact', key: `${rule.command.includes('/') ? 'f' : 'b'}:${rule.command}` };
  return undefined;
}

function indexRules(rules: CompiledRule[]): KindIndex {
  const index: KindIndex = { exact: new Map(), suffix: new Map(), rest: [] };
  for (const rule of [...rules].sort((a, b) => b.rank - a.rank)) {
    const key = rule.indexKey;
    if (key === undefined) index.rest.push(rule);
    else {
      const map = index[key.map];
      const list = map.get(key.key);
      if (list) list.push(rule);
      else map.set(key.key, [rule]);
    }
  }
  return index;
}

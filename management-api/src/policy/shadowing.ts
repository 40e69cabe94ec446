// Shadowed rules: a rule that can never decide, because another rule that ranks above it (at least as specific, then stronger or earlier) matches every action it matches.
import { compileGlob } from './glob.js';
import { hostPatternProblem, parseHostPattern, type HostPattern } from './host-pattern.js';
import type { PolicyRule } from './policy-types.js';
import type { CompiledPolicy } from './compile.js';
import { FIELDS_BY_KIND } from './rule-fields.js';

/** Rule `shadowed` never decides: rule `by` outranks it wherever it matches. */
export interface Shadowing {
  shadowed: number;
  by: number;
}

/**
 * Every shadowed rule of `policy` (compiled from `rules`), with the first rule that shadows it.
 * Coverage is judged field by field and errs towards "not covered" (a pattern is known to cover
 * another only when it is `*`, equal, or matches the other's exact value; a suffix covers its
 * names and longer suffixes), so a rule reported is certainly shadowed.
 */
export function shadowedRules(policy: CompiledPolicy, rules: readonly PolicyRule[]): Shadowing[] {
  const out: Shadowing[] = [];
  for (const j of policy.rules) {
    const by = policy.rules.find((i) => i !== j && i.kind === j.kind && i.rank > j.rank && covers(rules[i.index]!, rules[j.index]!));
    if (by !== undefined) out.push({ shadowed: j.index, by: by.index });
  }
  return out;
}

/** Whether rule `a` matches every action rule `b` matches (both of one kind, both well formed). */
export function covers(a: PolicyRule, b: PolicyRule): boolean {
  for (const field of FIELDS_BY_KIND[a.action]) {
    const ok =
      field === 'host'
        ? hostCovers(a.host, b.host)
        : field === 'port'
          ? a.port === undefined || a.port === b.port
          : field === 'method'
            ? a.method === undefined || a.method === b.method
            : field === 'args'
              ? argsCover(a.args, b.args)
              : field === 'command'
                ? commandCovers(a.command, b.command)
                : field === 'profile'
                  ? profileCovers(a.profile, b.profile)
                  : globCovers(a[field], b[field]);
    if (!ok) return false;
  }
  return true;
}

function globCovers(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || compileGlob(a).any) return true;
  if (b === undefined) return false;
  return a === b || (compileGlob(b).exact && compileGlob(a).test(b));
}

/** A profile pattern, even `*`, matches only spawns by profile: it covers no rule that leaves the field out. */
function profileCovers(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined) return true;
  if (b === undefined) return false;
  return compileGlob(a).any || globCovers(a, b);
}

function argsCover(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (a === undefined || a.length === 0) return true;
  if (b === undefined || b.length < a.length) return false;
  return a.every((pattern, k) => globCovers(pattern, b[k]));
}

/** A pattern without `/` is about the last segment, with one about the command as written. */
function commandCovers(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || compileGlob(a).any) return true;
  if (b === undefined) return false;
  if (a.includes('/') === b.includes('/')) return globCovers(a, b);
  // `git` covers `/usr/bin/git`; a pattern about the path never covers one about the segment.
  return !a.includes('/') && compileGlob(b).exact && compileGlob(a).test(b.slice(b.lastIndexOf('/') + 1));
}

function hostCovers(a: string | undefined, b: string | undefined): boolean {
  const pa = hostOf(a);
  if (pa.kind === 'any') return true;
  const pb = hostOf(b);
  if (pb.kind === 'any') return false;
  if (pa.kind !== 'suffix') return pa.kind === pb.kind && pa.value === pb.value;
  if (pb.kind === 'address') return false;
  // *.example.com covers a.example.com and *.a.example.com, not example.com itself.
  return pb.value.endsWith(`.${pa.value}`) || (pb.kind === 'suffix' && pb.value === pa.value);
}

function hostOf(pattern: string | undefined): HostPattern {
  return pattern === undefined || hostPatternProblem(pattern) !== undefined ? { kind: 'any' } : parseHostPattern(pattern);
}

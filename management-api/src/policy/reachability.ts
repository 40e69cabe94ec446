// Rules the box never asks about: an egress rule on a port or host the allowlist refuses first, a provider rule no brokered provider matches, egress rules without an egress proxy.
import { compileGlob } from './glob.js';
import { canonicalHost, hostMatches, hostPatternProblem, parseHostPattern, type HostPattern } from './host-pattern.js';
import type { PolicyRule } from './policy-types.js';

/** What the box decides before the policy: its egress allowlist and the providers its broker serves. */
export interface PolicyReach {
  /** Whether an egress proxy runs (sandbox.enabled). */
  egressProxy: boolean;
  allowDomains: readonly string[];
  allowPorts: readonly number[];
  /** Names of the providers the broker serves (enabled, with a base_url). */
  brokeredProviders: readonly string[];
}

/** Why rule `rule` is never asked about, by field, or undefined when it can be. */
export function unreachableBecause(rule: PolicyRule, reach: PolicyReach): { field: 'action' | 'host' | 'port' | 'provider'; why: string } | undefined {
  if (rule.action === 'egress') {
    if (!reach.egressProxy) return { field: 'action', why: 'no egress proxy runs (sandbox.enabled = false), so no egress is decided' };
    if (rule.port !== undefined && !reach.allowPorts.includes(rule.port))
      return { field: 'port', why: `port ${rule.port} is not in sandbox.egress.allow_ports, so the proxy refuses it before the policy is asked` };
    if (rule.host !== undefined && hostPatternProblem(rule.host) === undefined) {
      const host = parseHostPattern(rule.host);
      if (host.kind !== 'any' && !reach.allowDomains.some((entry) => overlaps(host, entry)))
        return { field: 'host', why: `no sandbox.egress.allow_domains entry admits ${rule.host}, so the proxy refuses it before the policy is asked` };
    }
  }
  if (rule.action === 'provider' && rule.provider !== undefined) {
    const glob = compileGlob(rule.provider);
    if (!reach.brokeredProviders.some((name) => glob.test(name)))
      return {
        field: 'provider',
        why: `no provider the broker serves matches ${JSON.stringify(rule.provider)} (declared under [providers], enabled, with a base_url)`,
      };
  }
  return undefined;
}

/** Whether some host both matches the rule's pattern and is admitted by an allow_domains entry. */
function overlaps(pattern: HostPattern, entry: string): boolean {
  if (hostPatternProblem(entry) !== undefined) return false;
  const admitted = parseHostPattern(entry);
  if (pattern.kind === 'exact' || pattern.kind === 'address') {
    const host = canonicalHost(pattern.value);
    return hostMatches(admitted, host);
  }
  if (pattern.kind !== 'suffix') return true;
  if (admitted.kind === 'exact') return hostMatches(pattern, canonicalHost(admitted.value));
  // Two suffixes share hosts when one ends with the other.
  return (
    admitted.kind === 'suffix' &&
    (admitted.value === pattern.value || admitted.value.endsWith(`.${pattern.value}`) || pattern.value.endsWith(`.${admitted.value}`))
  );
}

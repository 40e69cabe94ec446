// E052: a provider rule whose provider no brokered provider matches can never hold (a misspelt provider would leave a deny without effect).
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { brokeredProviders } from './helpers/providers.js';
import { unreachableBecause } from '../../policy/reachability.js';

/** A provider rule names (or matches) a provider the broker serves. */
export const policyProviderUndeclared: Rule = {
  id: 'E052',
  alias: 'policy-provider-undeclared',
  severity: 'error',
  summary: 'a provider rule of [policy] must match a provider the broker serves (under [providers], enabled, with a base_url)',
  check(m) {
    const served = brokeredProviders(m).map((p) => p.name);
    const out: RuleFinding[] = [];
    m.policy.rules.forEach((rule, i) => {
      if (rule.action !== 'provider') return;
      const unreachable = unreachableBecause(rule, { egressProxy: true, allowDomains: [], allowPorts: [], brokeredProviders: served });
      if (unreachable?.field === 'provider')
        out.push(
          finding(
            ['policy', 'rules', i, 'provider'],
            `policy.rules[${i}]: ${unreachable.why}; the rule can never hold`,
            served.length
              ? `name one of ${served.join(', ')}, or declare the provider with a base_url under [providers]`
              : 'declare the provider with a base_url under [providers], or remove the rule',
          ),
        );
    });
    return out;
  },
};

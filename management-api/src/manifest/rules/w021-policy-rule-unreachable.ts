// W021: an egress rule the egress proxy never asks about: its port or host is refused first by the allowlist, or no proxy runs at all.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { unreachableBecause } from '../../policy/reachability.js';

/** Egress rules are about ports and hosts the allowlist admits (it can change at run time, hence a warning). */
export const policyRuleUnreachable: Rule = {
  id: 'W021',
  alias: 'policy-rule-unreachable',
  severity: 'warning',
  summary: 'an egress rule of [policy] matches only connections the egress allowlist refuses first (or no egress proxy runs)',
  check(m) {
    const egress = m.sandbox.egress;
    const reach = { egressProxy: m.sandbox.enabled, allowDomains: egress.allow_domains, allowPorts: egress.allow_ports, brokeredProviders: [] };
    const out: RuleFinding[] = [];
    m.policy.rules.forEach((rule, i) => {
      if (rule.action !== 'egress') return;
      const unreachable = unreachableBecause(rule, reach);
      if (!unreachable) return;
      const hint =
        unreachable.field === 'port'
          ? `add ${rule.port} to sandbox.egress.allow_ports, or remove the rule (a policy never widens the allowlist)`
          : unreachable.field === 'host'
            ? `add ${JSON.stringify(rule.host)} (or a suffix that admits it) to sandbox.egress.allow_domains, or remove the rule`
            : 'set sandbox.enabled = true, or remove the egress rules';
      out.push(finding(['policy', 'rules', i, unreachable.field], `policy.rules[${i}]: ${unreachable.why}`, hint));
    });
    return out;
  },
};

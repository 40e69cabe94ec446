// E051: a [[policy.rules]] entry the evaluator could not read: a field its action does not have, a host pattern no host can take, an id used twice.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { FIELDS_BY_KIND, ALL_FIELDS } from '../../policy/rule-fields.js';
import { hostPatternProblem } from '../../policy/host-pattern.js';

/** Each policy rule constrains only its action's fields, with a well-formed host, under an id of its own. */
export const malformedPolicyRule: Rule = {
  id: 'E051',
  alias: 'malformed-policy-rule',
  severity: 'error',
  summary: "a policy rule constrains only its action's fields, a host is a name, *.suffix, an address or *, and ids are unique",
  check(m) {
    const out: RuleFinding[] = [];
    const ids = new Map<string, number>();
    m.policy.rules.forEach((rule, i) => {
      const fields = FIELDS_BY_KIND[rule.action];
      for (const field of ALL_FIELDS) {
        if (rule[field] === undefined || fields.includes(field)) continue;
        out.push(
          finding(
            ['policy', 'rules', i, field],
            `policy.rules[${i}] is ${article(rule.action)} ${rule.action} rule, and ${article(rule.action)} ${rule.action} action has no ${field}: the rule could never match`,
            `remove ${field}, or use the fields of ${article(rule.action)} ${rule.action} rule: ${fields.join(', ')}`,
          ),
        );
      }
      const problem = rule.host === undefined ? undefined : hostPatternProblem(rule.host);
      if (problem)
        out.push(
          finding(
            ['policy', 'rules', i, 'host'],
            `policy.rules[${i}].host = ${JSON.stringify(rule.host)}: ${problem}`,
            'write an exact name (api.example.com), a suffix (*.example.com), one address (203.0.113.7) or * for any host',
          ),
        );
      if (rule.id !== undefined) {
        const first = ids.get(rule.id);
        if (first === undefined) ids.set(rule.id, i);
        else
          out.push(
            finding(
              ['policy', 'rules', i, 'id'],
              `policy.rules[${i}].id = ${JSON.stringify(rule.id)} is also the id of policy.rules[${first}]: decisions and the audit log could not tell them apart`,
              'give each rule an id of its own',
            ),
          );
      }
    });
    return out;
  },
};

/** `an egress`, `a spawn`. */
function article(kind: string): string {
  return kind.startsWith('e') ? 'an' : 'a';
}

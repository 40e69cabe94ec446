// W022: a policy rule that never decides, because a rule ranking above it (as specific or more, then stronger or earlier) matches everything it matches.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { compilePolicy } from '../../policy/compile.js';
import { shadowedRules } from '../../policy/shadowing.js';
import { specificityOf } from '../../policy/rule-fields.js';

/** Every rule can decide some action. */
export const policyRuleShadowed: Rule = {
  id: 'W022',
  alias: 'policy-rule-shadowed',
  severity: 'warning',
  summary: 'a policy rule is shadowed: a rule that outranks it matches every action it matches, so it never decides',
  check(m) {
    let compiled: ReturnType<typeof compilePolicy>;
    try {
      compiled = compilePolicy(m.policy);
    } catch {
      // E051 names the malformed rule; shadows are judged once the rules can be read.
      return [];
    }
    const rules = m.policy.rules;
    const out: RuleFinding[] = [];
    for (const { shadowed, by } of shadowedRules(compiled, rules)) {
      const a = rules[by]!;
      const b = rules[shadowed]!;
      const moreSpecific = specificityOf(compiled.rules[by]!.rank) > specificityOf(compiled.rules[shadowed]!.rank);
      const why = moreSpecific
        ? 'it is more specific'
        : a.decision !== b.decision
          ? `at equal specificity ${a.decision} beats ${b.decision}`
          : 'at a full tie the first listed decides';
      out.push(
        finding(
          ['policy', 'rules', shadowed],
          `policy.rules[${shadowed}] (${b.decision}) never decides: policy.rules[${by}] (${a.decision}) matches every action it matches and outranks it (${why})`,
          `remove policy.rules[${shadowed}], or make it more specific than policy.rules[${by}] (constrain another field, or a longer pattern)`,
        ),
      );
    }
    return out;
  },
};

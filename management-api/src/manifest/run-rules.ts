// Stage 3: runs the semantic rule catalogue over a schema-valid manifest.
import type { Manifest } from './generated/manifest-types.js';
import type { Diagnostic } from './diagnostics.js';
import type { Rule, RuleContext, RuleFinding } from './rules/rule.js';
import { ruleCatalogue } from './rules/index.js';

/**
 * Diagnostics from every rule, in catalogue order. A rule that throws is a bug in the rule,
 * reported as an error diagnostic under its own id rather than crashing the validator.
 */
export function runRules(manifest: Manifest, context: RuleContext, rules: readonly Rule[] = ruleCatalogue): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const rule of rules) {
    let findings: RuleFinding[];
    try {
      findings = rule.check(manifest, context);
    } catch (err) {
      findings = [{ pointer: '', message: `rule failed internally: ${(err as Error).message}`, hint: 'report this as a bug' }];
    }
    for (const f of findings) {
      out.push({
        id: rule.id,
        alias: rule.alias,
        severity: rule.severity,
        source: 'rule',
        message: f.message,
        pointer: f.pointer,
        hint: f.hint,
      });
    }
  }
  return out;
}

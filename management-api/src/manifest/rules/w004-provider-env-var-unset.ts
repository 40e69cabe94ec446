// W004: an enabled provider whose key variable is missing fails only when an agent first calls it.
import type { Rule, RuleFinding } from './rule.js';
import { secretKind, UPPER_SNAKE } from '../../secrets/secret-names.js';
import { finding } from './helpers/findings.js';

/** The variable named by an enabled provider's `env_var` is set in the box's environment (context.env). */
export const providerEnvVarUnset: Rule = {
  id: 'W004',
  alias: 'provider-env-var-unset',
  severity: 'warning',
  summary: "an enabled provider's env_var should be set in the environment",
  check(m, ctx) {
    const out: RuleFinding[] = [];
    for (const [name, p] of Object.entries(m.providers)) {
      // Only well-formed names are looked up; E022 reports the others.
      if (!p?.enabled || !UPPER_SNAKE.test(p.env_var) || secretKind(p.env_var)) continue;
      if (ctx.env[p.env_var]) continue;
      out.push(
        finding(
          ['providers', name, 'env_var'],
          `providers.${name}.env_var names ${p.env_var}, which is not set (or empty) in the environment`,
          `export ${p.env_var}=<key> where the box is started, or set providers.${name}.enabled = false`,
        ),
      );
    }
    return out;
  },
};

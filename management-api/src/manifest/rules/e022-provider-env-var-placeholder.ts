// E022: a provider's key lives in an environment variable; the manifest holds only that variable's UPPER_SNAKE_CASE name.
import type { Rule, RuleFinding } from './rule.js';
import { secretKind, UPPER_SNAKE } from '../../secrets/secret-names.js';
import { finding } from './helpers/findings.js';

/** `providers.<n>.env_var` is a variable name: set (when enabled), UPPER_SNAKE_CASE, never the key. */
export const providerEnvVarPlaceholder: Rule = {
  id: 'E022',
  alias: 'provider-env-var-placeholder',
  severity: 'error',
  summary: 'providers.<name>.env_var must be the UPPER_SNAKE_CASE name of a variable, never the key',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, p] of Object.entries(m.providers)) {
      if (!p) continue;
      const at = ['providers', name, 'env_var'];
      const example = `${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}_API_KEY`;
      const kind = secretKind(p.env_var);
      if (kind) {
        out.push(
          finding(
            at,
            `providers.${name}.env_var looks like ${kind}, not a variable name`,
            `write env_var = "${example}", export the key in that variable, and revoke the exposed key`,
          ),
        );
      } else if (p.env_var === '' && p.enabled) {
        out.push(
          finding(
            at,
            `providers.${name} is enabled but providers.${name}.env_var is empty`,
            `set env_var = "${example}" (the variable holding the key), or enabled = false`,
          ),
        );
      } else if (p.env_var !== '' && !UPPER_SNAKE.test(p.env_var)) {
        out.push(finding(at, `providers.${name}.env_var = "${p.env_var}" is not an UPPER_SNAKE_CASE variable name`, `write env_var = "${example}"`));
      }
    }
    return out;
  },
};

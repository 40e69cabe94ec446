// W008: an external adapter whose secret variable is missing fails its first connect() at boot.
import type { Rule, RuleFinding } from './rule.js';
import { secretKind } from '../../secrets/secret-names.js';
import { finding } from './helpers/findings.js';
import { HTTP_SLOTS, slotImpls } from './helpers/slots.js';

/** Variables named by external adapters (`token_env`, `connection_env`) are set in context.env. */
export const integrationEnvVarUnset: Rule = {
  id: 'W008',
  alias: 'integration-env-var-unset',
  severity: 'warning',
  summary: 'variables named by external integrations (token_env, connection_env) should be set',
  check(m, ctx) {
    const named: Array<[string, string, string]> = [];
    for (const slot of HTTP_SLOTS) {
      if (m.adapters[slot] === slotImpls[slot].external) named.push([slot, 'token_env', m.integrations[slot].token_env]);
    }
    if (m.adapters.memory === slotImpls.memory.external) named.push(['memory', 'connection_env', m.integrations.memory.connection_env]);
    const out: RuleFinding[] = [];
    for (const [slot, key, variable] of named) {
      // A pasted secret is E005's finding, not a variable to look up.
      if (variable === '' || secretKind(variable) || ctx.env[variable]) continue;
      out.push(
        finding(
          ['integrations', slot, key],
          `integrations.${slot}.${key} names ${variable}, which is not set (or empty) in the environment`,
          `export ${variable} where the box is started, or name the secret with ${key.replace('_env', '_file')} = "/run/secrets/<file>" instead`,
        ),
      );
    }
    return out;
  },
};

// E033: a secret named both by a variable and by a file leaves it unclear which one the adapter uses.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { HTTP_SLOTS } from './helpers/slots.js';

/** An integration names its secret by `*_env` or by `*_file`, not both. */
export const ambiguousSecretSource: Rule = {
  id: 'E033',
  alias: 'ambiguous-secret-source',
  severity: 'error',
  summary: 'an integration names its secret by token_env/connection_env or by token_file/connection_file, not both',
  check(m) {
    const pairs: Array<[string, string, string, string]> = [
      ...HTTP_SLOTS.map((slot): [string, string, string, string] => [slot, 'token', m.integrations[slot].token_env, m.integrations[slot].token_file]),
      ['memory', 'connection', m.integrations.memory.connection_env, m.integrations.memory.connection_file],
    ];
    const out: RuleFinding[] = [];
    for (const [slot, what, env, file] of pairs) {
      if (env === '' || file === '') continue;
      out.push(
        finding(
          ['integrations', slot, `${what}_file`],
          `integrations.${slot} sets both ${what}_env = "${env}" and ${what}_file = "${file}"`,
          `keep one: delete ${what}_file to read the variable ${env}, or delete ${what}_env to read the file`,
        ),
      );
    }
    return out;
  },
};

// E004: a programme variable named like a secret (…_TOKEN, …_PASSWORD, …_API_KEY) must not hold a literal value.
import type { Rule, RuleFinding } from './rule.js';
import { isInlineSecretVariable } from '../../secrets/secret-names.js';
import { finding, keyPath } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';

/** Secret-named programme variables may only refer to another variable. */
export const secretInEnvironment: Rule = {
  id: 'E004',
  alias: 'secret-in-environment',
  severity: 'error',
  summary: 'a programme variable named like a secret must not hold a literal value',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, program] of programEntries(m)) {
      for (const [key, value] of Object.entries(program.environment)) {
        if (value === undefined || !isInlineSecretVariable(key, value)) continue;
        const segments = ['programs', name, 'environment', key];
        out.push(
          finding(
            segments,
            `${keyPath(segments)} is named like a secret and holds a literal value`,
            `delete ${key} here and give it to the box at run time (programmes inherit the box's environment), or point the programme at a secret file: ${key}_FILE = "/run/secrets/${key.toLowerCase()}"`,
          ),
        );
      }
    }
    return out;
  },
};

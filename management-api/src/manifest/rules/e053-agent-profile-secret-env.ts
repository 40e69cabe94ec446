// E053: an agent profile's env is handed to a hostile process: a name or value that looks like a secret is refused.
import type { Rule, RuleFinding } from './rule.js';
import { isSecretName, secretKind } from '../../secrets/secret-names.js';
import { finding, keyPath } from './helpers/findings.js';
import { profileEntries } from './helpers/profiles.js';

/** Profile variables are plain configuration: no secret-named variable, no credential-shaped value. */
export const agentProfileSecretEnv: Rule = {
  id: 'E053',
  alias: 'agent-profile-secret-env',
  severity: 'error',
  summary: 'an agent profile env must hold no secret: no variable named like one, no value shaped like one',
  check(m) {
    const out: RuleFinding[] = [];
    for (const [name, profile] of profileEntries(m)) {
      for (const [key, value] of Object.entries(profile.env)) {
        if (value === undefined) continue;
        const segments = ['agents', 'profiles', name, 'env', key];
        const kind = secretKind(value);
        // An agent may read its whole environment and send it anywhere it can reach: a key given to it is given away.
        if (isSecretName(key) || kind) {
          out.push(
            finding(
              segments,
              `${keyPath(segments)} ${kind ? `looks like ${kind}` : 'is named like a secret'}; an agent's environment is the agent's to read and leak`,
              'give the agent its provider through the broker (providers = ["<name>"] in the profile, the key under [providers]), or a non-secret setting under another name; then revoke an exposed key',
            ),
          );
        }
      }
    }
    return out;
  },
};

// E054: a profile may only name providers the broker serves; a misspelt one would leave its agents without the provider they were meant to have.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { brokeredProviders } from './helpers/providers.js';
import { profileEntries } from './helpers/profiles.js';

/** Every provider a profile names is under [providers], enabled, with a base_url. */
export const agentProfileProviderUndeclared: Rule = {
  id: 'E054',
  alias: 'agent-profile-provider-undeclared',
  severity: 'error',
  summary: 'agents.profiles.<name>.providers must name providers the broker serves (under [providers], enabled, with a base_url)',
  check(m) {
    const served = brokeredProviders(m).map((p) => p.name);
    const out: RuleFinding[] = [];
    for (const [name, profile] of profileEntries(m)) {
      profile.providers.forEach((provider, i) => {
        if (served.includes(provider)) return;
        out.push(
          finding(
            ['agents', 'profiles', name, 'providers', i],
            `agents.profiles.${name}.providers[${i}] = ${JSON.stringify(provider)} is not a provider the broker serves`,
            served.length
              ? `name one of ${served.join(', ')}, or declare [providers.${provider}] with env_var and base_url`
              : `declare [providers.${provider}] with env_var and base_url, or remove it from the profile`,
          ),
        );
      });
    }
    return out;
  },
};

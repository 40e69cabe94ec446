// E044: each brokered provider is announced to agents in its own <NAME>_BASE_URL; two providers, or a box variable, cannot share one.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { brokeredProviders } from './helpers/providers.js';

/** Enabled providers with a base_url map to distinct `<NAME>_BASE_URL` variables outside the box's `AGENTBOX_*` names. */
export const providerBaseUrlVariableClash: Rule = {
  id: 'E044',
  alias: 'provider-base-url-variable-clash',
  severity: 'error',
  summary: 'providers with a base_url must map to distinct <NAME>_BASE_URL variables outside AGENTBOX_*',
  check(m) {
    const out: RuleFinding[] = [];
    const first = new Map<string, string>();
    for (const p of brokeredProviders(m)) {
      const at = ['providers', p.name, 'base_url'];
      if (p.variable.startsWith('AGENTBOX_')) {
        out.push(
          finding(
            at,
            `providers.${p.name} would be announced to agents as ${p.variable}, a name reserved for the box (AGENTBOX_*)`,
            `rename the provider (for example [providers.${p.name}-api])`,
          ),
        );
        continue;
      }
      const earlier = first.get(p.variable);
      if (earlier === undefined) first.set(p.variable, p.name);
      else
        out.push(
          finding(
            at,
            `providers.${p.name} and providers.${earlier} are both announced to agents as ${p.variable} (names differing only in "-" and "_" map to one variable)`,
            `rename one of them, or remove base_url from one`,
          ),
        );
    }
    return out;
  },
};

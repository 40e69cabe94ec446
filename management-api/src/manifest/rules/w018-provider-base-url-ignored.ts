// W018: a provider's base_url reaches agents only through the broker, which serves the local orchestrator's enabled providers.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { baseUrlVariable } from './helpers/providers.js';
import { slotImpls } from './helpers/slots.js';

/** A base_url has an effect: its provider is enabled and agents are started by the local orchestrator. */
export const providerBaseUrlIgnored: Rule = {
  id: 'W018',
  alias: 'provider-base-url-ignored',
  severity: 'warning',
  summary: 'base_url has no effect on a disabled provider, or when agents are not started by the local orchestrator',
  check(m) {
    const out: RuleFinding[] = [];
    const local = m.adapters.orchestrator === slotImpls.orchestrator.local;
    for (const [name, p] of Object.entries(m.providers)) {
      if (!p || p.base_url === '') continue;
      const at = ['providers', name, 'base_url'];
      if (!p.enabled)
        out.push(
          finding(
            at,
            `providers.${name}.base_url is set but the provider is disabled, so agents are not offered it`,
            `set providers.${name}.enabled = true, or remove base_url`,
          ),
        );
      else if (!local)
        out.push(
          finding(
            at,
            `providers.${name}.base_url is set but adapters.orchestrator = "${m.adapters.orchestrator}": only agents of the local orchestrator (${slotImpls.orchestrator.local}) receive a token and ${baseUrlVariable(name)}`,
            `use adapters.orchestrator = "${slotImpls.orchestrator.local}", or give the external orchestrator's agents their provider access there`,
          ),
        );
    }
    return out;
  },
};

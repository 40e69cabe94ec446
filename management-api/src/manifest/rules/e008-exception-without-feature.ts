// E008: an exception for a feature that is off widens the baseline for nothing; exceptions exist only for
// features — and sandbox-namespaces, which exists only for agents that use namespaces.
import type { Rule, RuleFinding } from './rule.js';
import { agentsUseNamespaces, exceptionEntries, hasNamespacesException, NAMESPACES_EXCEPTION } from './helpers/exceptions.js';
import { featureNeeds } from './helpers/features.js';
import { finding } from './helpers/findings.js';

/** Every declared exception belongs to an enabled feature; sandbox-namespaces to agents that use namespaces. */
export const exceptionWithoutFeature: Rule = {
  id: 'E008',
  alias: 'exception-without-feature',
  severity: 'error',
  summary: 'a security exception is only allowed for a feature that is enabled (sandbox-namespaces: for agents that use namespaces)',
  check(m) {
    const needs = featureNeeds(m);
    const unused: RuleFinding[] =
      hasNamespacesException(m) && !agentsUseNamespaces(m)
        ? [
            finding(
              ['security', 'exceptions', NAMESPACES_EXCEPTION],
              `[security.exceptions.${NAMESPACES_EXCEPTION}] is declared but agents use no namespaces (${m.sandbox.enabled ? 'sandbox.namespaces = "off"' : 'sandbox.enabled = false'})`,
              `delete [security.exceptions.${NAMESPACES_EXCEPTION}], or set sandbox.namespaces = "auto" or "required" with the sandbox on`,
            ),
          ]
        : [];
    return exceptionEntries(m)
      .filter(([name]) => !needs.some((n) => n.exception === name && n.enabled))
      .map(([name]) => {
        const need = needs.find((n) => n.exception === name);
        return finding(
          ['security', 'exceptions', name],
          `[security.exceptions.${name}] is declared but ${need?.setting ?? 'its feature'} is not set`,
          `delete [security.exceptions.${name}], or enable the feature with ${need?.setting ?? 'the matching [features] key'}`,
        );
      })
      .concat(unused);
  },
};

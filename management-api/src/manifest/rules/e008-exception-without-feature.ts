// E008: an exception for a feature that is off widens the baseline for nothing; exceptions exist only for features.
import type { Rule } from './rule.js';
import { exceptionEntries } from './helpers/exceptions.js';
import { featureNeeds } from './helpers/features.js';
import { finding } from './helpers/findings.js';

/** Every declared exception belongs to an enabled feature. */
export const exceptionWithoutFeature: Rule = {
  id: 'E008',
  alias: 'exception-without-feature',
  severity: 'error',
  summary: 'a security exception is only allowed for a feature that is enabled',
  check(m) {
    const needs = featureNeeds(m);
    return exceptionEntries(m)
      .filter(([name]) => !needs.some((n) => n.exception === name && n.enabled))
      .map(([name]) => {
        const need = needs.find((n) => n.exception === name);
        return finding(
          ['security', 'exceptions', name],
          `[security.exceptions.${name}] is declared but ${need?.setting ?? 'its feature'} is not set`,
          `delete [security.exceptions.${name}], or enable the feature with ${need?.setting ?? 'the matching [features] key'}`,
        );
      });
  },
};

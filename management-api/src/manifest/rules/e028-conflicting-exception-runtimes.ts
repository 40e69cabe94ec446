// E028: a container has exactly one runtime; two exceptions asking for different ones cannot both be honoured.
import type { Rule } from './rule.js';
import { exceptionEntries } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';

/** All non-empty `security.exceptions.<n>.runtime` values are equal. */
export const conflictingExceptionRuntimes: Rule = {
  id: 'E028',
  alias: 'conflicting-exception-runtimes',
  severity: 'error',
  summary: 'security exceptions must not name different container runtimes',
  check(m) {
    const named = exceptionEntries(m).filter(([, ex]) => ex.runtime !== '');
    const [first] = named;
    if (!first) return [];
    return named
      .filter(([, ex]) => ex.runtime !== first[1].runtime)
      .map(([name, ex]) =>
        finding(
          ['security', 'exceptions', name, 'runtime'],
          `security.exceptions.${name}.runtime = "${ex.runtime}" conflicts with security.exceptions.${first[0]}.runtime = "${first[1].runtime}"`,
          `use one runtime for the box: set runtime = "${first[1].runtime}" here or leave it empty (runtime = "")`,
        ),
      );
  },
};

// E018: programmes that depend on each other in a circle have no start order at all.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { dependencyCycles } from './helpers/graph.js';

/** The `depends_on` graph of programmes has no cycles. */
export const programDependencyCycle: Rule = {
  id: 'E018',
  alias: 'program-dependency-cycle',
  severity: 'error',
  summary: 'programme dependencies (depends_on) must not form a cycle',
  check(m) {
    return dependencyCycles(m).map((cycle) => {
      const first = cycle[0]!;
      return finding(
        ['programs', first, 'depends_on'],
        `programmes ${cycle.join(', ')} depend on each other in a cycle`,
        `remove one of the depends_on entries among ${cycle.join(', ')} so one of them can start first`,
      );
    });
  },
};

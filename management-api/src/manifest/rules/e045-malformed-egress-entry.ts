// E045: an allow_domains entry the egress proxy could never match (a wildcard on an address, a wildcard inside a name, a label DNS does not allow).
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { entryProblem } from '../../grammar/egress-entry.js';

/** Every `sandbox.egress.allow_domains` entry is a host name, `*.` and a host name, or a literal address. */
export const malformedEgressEntry: Rule = {
  id: 'E045',
  alias: 'malformed-egress-entry',
  severity: 'error',
  summary: 'sandbox.egress.allow_domains entries are names, *.suffix names or literal addresses',
  check(m) {
    return m.sandbox.egress.allow_domains.flatMap((entry, i) => {
      const problem = entryProblem(entry);
      return problem
        ? [
            finding(
              ['sandbox', 'egress', 'allow_domains', i],
              `sandbox.egress.allow_domains[${i}] = ${JSON.stringify(entry)}: ${problem}`,
              'list an exact name (api.example.com), a suffix (*.example.com) or one address (203.0.113.7)',
            ),
          ]
        : [];
    });
  },
};

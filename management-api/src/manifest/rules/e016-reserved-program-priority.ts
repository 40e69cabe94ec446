// E016: priorities below 100 order the box's own programmes (bootstrap, API, seal), which must start first.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { FIRST_OPERATOR_PRIORITY, programEntries } from './helpers/programs.js';

/** Operator programmes use priority 100 or more. */
export const reservedProgramPriority: Rule = {
  id: 'E016',
  alias: 'reserved-program-priority',
  severity: 'error',
  summary: `programme priorities below ${FIRST_OPERATOR_PRIORITY} are reserved for the box`,
  check(m) {
    return programEntries(m)
      .filter(([, p]) => p.priority < FIRST_OPERATOR_PRIORITY)
      .map(([name, p]) =>
        finding(
          ['programs', name, 'priority'],
          `programs.${name}.priority = ${p.priority} is in the range 1-${FIRST_OPERATOR_PRIORITY - 1} reserved for the box's own programmes`,
          `use a priority of ${FIRST_OPERATOR_PRIORITY} or more (lower starts first), for example priority = ${FIRST_OPERATOR_PRIORITY}`,
        ),
      );
  },
};

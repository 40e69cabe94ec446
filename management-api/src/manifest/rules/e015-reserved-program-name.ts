// E015: the box's own programmes live in the same supervisord configuration; a same-named one would replace them.
import type { Rule } from './rule.js';
import { reservedProgramNames } from '../../box-facts.js';
import { finding } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';

/** `[programs.<name>]` must not use a name the box reserves for itself. */
export const reservedProgramName: Rule = {
  id: 'E015',
  alias: 'reserved-program-name',
  severity: 'error',
  summary: 'programme names used by the box itself (bootstrap, management-api, relay, …) are reserved',
  check(m) {
    return programEntries(m)
      .filter(([name]) => reservedProgramNames.includes(name))
      .map(([name]) =>
        finding(
          ['programs', name],
          `[programs.${name}] uses a name reserved for the box's own programmes (${reservedProgramNames.join(', ')})`,
          `rename it, for example [programs.my-${name}]`,
        ),
      );
  },
};

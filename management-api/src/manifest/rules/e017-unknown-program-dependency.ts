// E017: a dependency on a programme that does not exist (or on itself) can never be satisfied.
import type { Rule, RuleFinding } from './rule.js';
import { suggest } from '../schema-errors.js';
import { finding } from './helpers/findings.js';
import { programEntries } from './helpers/programs.js';

/** `depends_on` names other `[programs]` entries only. */
export const unknownProgramDependency: Rule = {
  id: 'E017',
  alias: 'unknown-program-dependency',
  severity: 'error',
  summary: 'depends_on must name other programmes of [programs]',
  check(m) {
    const names = programEntries(m).map(([name]) => name);
    const known = new Set(names);
    const out: RuleFinding[] = [];
    for (const [name, p] of programEntries(m)) {
      p.depends_on.forEach((dep, i) => {
        if (dep === name) {
          out.push(
            finding(
              ['programs', name, 'depends_on', i],
              `programs.${name}.depends_on names the programme itself`,
              `remove "${dep}" from programs.${name}.depends_on`,
            ),
          );
        } else if (!known.has(dep)) {
          const guess = suggest(
            dep,
            names.filter((n) => n !== name),
          );
          out.push(
            finding(
              ['programs', name, 'depends_on', i],
              `programs.${name}.depends_on names "${dep}", which is not a [programs] entry`,
              guess ? `did you mean "${guess}"? Otherwise declare [programs.${dep}] or remove "${dep}"` : `declare [programs.${dep}], or remove "${dep}"`,
            ),
          );
        }
      });
    }
    return out;
  },
};

// E019: supervisord starts programmes by priority only, so a dependency must have a strictly lower priority.
import type { Rule, RuleFinding } from './rule.js';
import { dependencyCycles, finding, programEntries } from './rule-helpers.js';

/** A programme's dependencies start before it: their priority is lower. */
export const dependencyStartsLater: Rule = {
  id: 'E019',
  alias: 'dependency-starts-later',
  severity: 'error',
  summary: 'a programme must not depend on one with an equal or larger priority',
  check(m) {
    const programs = new Map(programEntries(m));
    // Edges inside a cycle can never be ordered; E018 reports the cycle itself.
    const cycleOf = new Map<string, number>();
    dependencyCycles(m).forEach((cycle, i) => cycle.forEach((name) => cycleOf.set(name, i)));
    const out: RuleFinding[] = [];
    for (const [name, p] of programs) {
      p.depends_on.forEach((dep, i) => {
        const target = programs.get(dep);
        if (!target || dep === name || (cycleOf.has(name) && cycleOf.get(name) === cycleOf.get(dep))) return;
        if (target.priority < p.priority) return;
        const why =
          target.priority === p.priority
            ? `both have priority ${p.priority}, so the order is not guaranteed`
            : `"${dep}" has priority ${target.priority}, so it starts after programs.${name} (priority ${p.priority})`;
        out.push(
          finding(
            ['programs', name, 'depends_on', i],
            `programs.${name} depends on "${dep}", but ${why}`,
            `raise programs.${name}.priority above ${target.priority}, or lower programs.${dep}.priority below ${p.priority} (priorities from 100 up)`,
          ),
        );
      });
    }
    return out;
  },
};

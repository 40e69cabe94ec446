// W002: supervisord does not define the start order of programmes with equal priority.
import type { Rule, RuleFinding } from './rule.js';
import { finding, programEntries } from './rule-helpers.js';

/** Programme priorities are distinct, so the start order is explicit. */
export const duplicateProgramPriority: Rule = {
  id: 'W002',
  alias: 'duplicate-program-priority',
  severity: 'warning',
  summary: 'two programmes with the same priority start in no defined order',
  check(m) {
    const programs = programEntries(m);
    const taken = new Set(programs.map(([, p]) => p.priority));
    const first = new Map<number, string>();
    const out: RuleFinding[] = [];
    // Suggestions only move forward, so a manifest with thousands of programmes stays linear.
    let cursor = 100;
    for (const [name, p] of programs) {
      const other = first.get(p.priority);
      if (other === undefined) {
        first.set(p.priority, name);
        continue;
      }
      let free = Math.max(cursor, p.priority + 10);
      while (taken.has(free) && free < 999) free++;
      cursor = free + 1;
      out.push(
        finding(
          ['programs', name, 'priority'],
          `programs.${name} and programs.${other} both have priority ${p.priority}, so their start order is not defined`,
          `give programs.${name} its own priority (lower starts first), for example priority = ${Math.min(999, free)}`,
        ),
      );
    }
    return out;
  },
};

// W002: supervisord does not define the start order of programmes with equal priority.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { startPriorities } from './helpers/graph.js';
import { programEntries } from './helpers/programs.js';

/**
 * Programmes start at distinct priorities, so the start order is explicit. The start priority is
 * the one supervisord gets: the declared priority, raised past the dependencies' by depends_on.
 */
export const duplicateProgramPriority: Rule = {
  id: 'W002',
  alias: 'duplicate-program-priority',
  severity: 'warning',
  summary: 'two programmes with the same priority start in no defined order',
  check(m) {
    const programs = programEntries(m);
    const starts = startPriorities(m);
    const taken = new Set(starts.values());
    const first = new Map<number, string>();
    const out: RuleFinding[] = [];
    // Suggestions only move forward, so a manifest with thousands of programmes stays linear.
    let cursor = 100;
    for (const [name] of programs) {
      const start = starts.get(name)!;
      const other = first.get(start);
      if (other === undefined) {
        first.set(start, name);
        continue;
      }
      let free = Math.max(cursor, start + 10);
      while (taken.has(free) && free < 999) free++;
      cursor = free + 1;
      out.push(
        finding(
          ['programs', name, 'priority'],
          `programs.${name} and programs.${other} both start at priority ${start}, so their start order is not defined`,
          `give programs.${name} its own priority (lower starts first), for example priority = ${Math.min(999, free)}, or order the two with depends_on`,
        ),
      );
    }
    return out;
  },
};

// E055: a profile lowers the box's per-agent budgets, never raises them (a spawn request cannot either).
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { profileEntries } from './helpers/profiles.js';
import { memoryBytes } from '../../grammar/size.js';

/** Each profile limit is at most the sandbox.limits key of the same name. */
export const agentProfileLimitAboveSandbox: Rule = {
  id: 'E055',
  alias: 'agent-profile-limit-above-sandbox',
  severity: 'error',
  summary: 'agents.profiles.<name>.limits must not exceed sandbox.limits',
  check(m) {
    const box = m.sandbox.limits;
    const ceilings = {
      memory: memoryBytes(box.memory),
      cpu_seconds: box.cpu_seconds,
      processes: box.processes,
      disk: memoryBytes(box.disk),
      entries: box.entries,
    };
    const shown = { memory: box.memory, cpu_seconds: String(box.cpu_seconds), processes: String(box.processes), disk: box.disk, entries: String(box.entries) };
    const out: RuleFinding[] = [];
    for (const [name, profile] of profileEntries(m)) {
      for (const key of ['memory', 'cpu_seconds', 'processes', 'disk', 'entries'] as const) {
        const value = profile.limits[key];
        if (value === undefined) continue;
        const amount = typeof value === 'string' ? memoryBytes(value) : value;
        if (amount <= ceilings[key]) continue;
        out.push(
          finding(
            ['agents', 'profiles', name, 'limits', key],
            `agents.profiles.${name}.limits.${key} = ${JSON.stringify(value)} is above sandbox.limits.${key} (${shown[key]})`,
            `lower it to at most ${shown[key]}, or raise sandbox.limits.${key} for every agent`,
          ),
        );
      }
    }
    return out;
  },
};

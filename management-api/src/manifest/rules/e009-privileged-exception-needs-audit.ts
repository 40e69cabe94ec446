// E009: capabilities and host devices break the "no capabilities" baseline, so they need an explicit review.
import type { Rule, RuleFinding } from './rule.js';
import { exceptionEntries } from './helpers/exceptions.js';
import { finding } from './helpers/findings.js';

/** `cap_add` or `devices` in any exception need `security.audit_acknowledged = true`. */
export const privilegedExceptionNeedsAudit: Rule = {
  id: 'E009',
  alias: 'privileged-exception-needs-audit',
  severity: 'error',
  summary: 'cap_add or devices in an exception need security.audit_acknowledged = true',
  check(m) {
    if (m.security.audit_acknowledged) return [];
    const out: RuleFinding[] = [];
    for (const [name, ex] of exceptionEntries(m)) {
      for (const key of ['cap_add', 'devices'] as const) {
        if (ex[key].length === 0) continue;
        out.push(
          finding(
            ['security', 'exceptions', name, key],
            `security.exceptions.${name}.${key} adds ${ex[key].join(', ')} but security.audit_acknowledged is false`,
            `review what ${ex[key].join(', ')} allows, then set [security] audit_acknowledged = true — or remove ${key} from the exception`,
          ),
        );
      }
    }
    return out;
  },
};

// E024: a critical slot gates /ready; a slot that is off can never become healthy, so the intent is contradictory.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { slotImpls } from './helpers/slots.js';

/** `adapters.critical` names only slots that are not off. */
export const criticalSlotOff: Rule = {
  id: 'E024',
  alias: 'critical-slot-off',
  severity: 'error',
  summary: 'adapters.critical must not name a slot that is off',
  check(m) {
    return m.adapters.critical.flatMap((slot, i) =>
      // The orchestrator counts as critical whatever the list says and is listed by default, so
      // naming it says nothing more; only the other slots are an operator's explicit choice.
      slot !== 'orchestrator' && m.adapters[slot] === slotImpls[slot].off
        ? [
            finding(
              ['adapters', 'critical', i],
              `adapters.critical names "${slot}", but adapters.${slot} = "${slotImpls[slot].off}"`,
              `remove "${slot}" from adapters.critical, or choose an implementation for adapters.${slot}`,
            ),
          ]
        : [],
    );
  },
};

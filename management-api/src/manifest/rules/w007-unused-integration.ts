// W007: integration settings for a slot that is not external are never read; often the adapter switch was forgotten.
import type { Rule, RuleFinding } from './rule.js';
import { finding } from './helpers/findings.js';
import { HTTP_SLOTS, slotImpls } from './helpers/slots.js';
import type { Slot } from '../../box-facts.js';

/** `[integrations.<slot>]` endpoint keys are set only for external adapters. */
export const unusedIntegration: Rule = {
  id: 'W007',
  alias: 'unused-integration',
  severity: 'warning',
  summary: '[integrations.<slot>] endpoint settings are ignored unless the slot is external',
  check(m) {
    const out: RuleFinding[] = [];
    const unused = (slot: Slot, keys: Array<[string, boolean]>) => {
      if (m.adapters[slot] === slotImpls[slot].external) return;
      for (const [key, set] of keys) {
        if (!set) continue;
        out.push(
          finding(
            ['integrations', slot, key],
            `integrations.${slot}.${key} is set but adapters.${slot} = "${m.adapters[slot]}" does not use it`,
            `set adapters.${slot} = "${slotImpls[slot].external}" to use this endpoint, or delete integrations.${slot}.${key}`,
          ),
        );
      }
    };
    for (const slot of HTTP_SLOTS) {
      const i = m.integrations[slot];
      unused(slot, [
        ['url', i.url !== ''],
        ['token_env', i.token_env !== ''],
        ['token_file', i.token_file !== ''],
      ]);
    }
    // table and dimension are read by every memory adapter, so only the connection keys count.
    const mem = m.integrations.memory;
    unused('memory', [
      ['connection_env', mem.connection_env !== ''],
      ['connection_file', mem.connection_file !== ''],
    ]);
    const orch = m.integrations.orchestrator;
    unused('orchestrator', [
      ['command', orch.command !== ''],
      ['args', orch.args.length > 0],
    ]);
    return out;
  },
};

// E046: an agent's memory budget above the container's memory could never be reached: the box would run out first.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { memoryBytes } from '../../grammar/size.js';

/** `sandbox.limits.memory` is at most `resources.memory`. */
export const agentMemoryAboveContainer: Rule = {
  id: 'E046',
  alias: 'agent-memory-above-container',
  severity: 'error',
  summary: 'sandbox.limits.memory must not exceed resources.memory',
  check(m) {
    if (memoryBytes(m.sandbox.limits.memory) <= memoryBytes(m.resources.memory)) return [];
    return [
      finding(
        ['sandbox', 'limits', 'memory'],
        `sandbox.limits.memory = "${m.sandbox.limits.memory}" is more than the whole box has (resources.memory = "${m.resources.memory}"): the container would run out of memory, and the API with it, before one agent reached its budget`,
        `set sandbox.limits.memory to at most "${m.resources.memory}", leaving room for the API and other agents (the default is "2g" with resources.memory "4g")`,
      ),
    ];
  },
};

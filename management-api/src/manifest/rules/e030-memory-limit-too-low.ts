// E030: below 256 MiB the management API, supervisord and the adapters cannot start together.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';
import { memoryBytes } from '../../grammar/size.js';

const MIN_BYTES = 256 * 1024 ** 2;

/** `resources.memory` is at least 256m. */
export const memoryLimitTooLow: Rule = {
  id: 'E030',
  alias: 'memory-limit-too-low',
  severity: 'error',
  summary: 'resources.memory must be at least 256m',
  check(m) {
    if (memoryBytes(m.resources.memory) >= MIN_BYTES) return [];
    return [
      finding(
        ['resources', 'memory'],
        `resources.memory = "${m.resources.memory}" is below the 256m the box needs to start (a bare number is bytes)`,
        'set resources.memory = "512m" or more (units k, m, g); the default is "4g"',
      ),
    ];
  },
};

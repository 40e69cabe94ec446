// W011: without strict_immutable the box boots on a writable image root, losing the "boot is immutable" guarantee.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

/** `security.strict_immutable` stays true outside of debugging. */
export const strictImmutableDisabled: Rule = {
  id: 'W011',
  alias: 'strict-immutable-disabled',
  severity: 'warning',
  summary: 'security.strict_immutable = false lets the box boot on a writable root',
  check(m) {
    if (m.security.strict_immutable) return [];
    return [
      finding(
        ['security', 'strict_immutable'],
        'security.strict_immutable = false: the box will boot even when its image root is writable',
        'set strict_immutable = true and run the container with a read-only root (the generated compose file does)',
      ),
    ];
  },
};

// E021: a seal timeout under 10 s fails healthy boots; over an hour, a broken boot goes unnoticed for too long.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

const MIN_SEC = 10;
const MAX_SEC = 3600;

/** `bootstrap.seal_timeout_sec` is within 10..3600. */
export const sealTimeoutBounds: Rule = {
  id: 'E021',
  alias: 'seal-timeout-bounds',
  severity: 'error',
  summary: `bootstrap.seal_timeout_sec must be within ${MIN_SEC}..${MAX_SEC}`,
  check(m) {
    const sec = m.bootstrap.seal_timeout_sec;
    if (sec >= MIN_SEC && sec <= MAX_SEC) return [];
    return [
      finding(
        ['bootstrap', 'seal_timeout_sec'],
        `bootstrap.seal_timeout_sec = ${sec} is outside ${MIN_SEC}..${MAX_SEC}`,
        `use a value from ${MIN_SEC} to ${MAX_SEC} seconds; the default is 120`,
      ),
    ];
  },
};

// E006: two listeners on one port — the second fails to bind at boot, long after validation could have said so.
import type { Rule, RuleFinding } from './rule.js';
import { finding, keyPath } from './helpers/findings.js';
import { type PortUse, portUses } from './helpers/ports.js';

/** api.port, observability.metrics_port, the relay port, programme ports and enabled features' fixed ports must all differ. */
export const portCollision: Rule = {
  id: 'E006',
  alias: 'port-collision',
  severity: 'error',
  summary: 'the api, metrics, relay, programme and feature ports must all differ',
  check(m) {
    const uses = portUses(m);
    const taken = new Set(uses.map((u) => u.port));
    const first = new Map<number, PortUse>();
    const out: RuleFinding[] = [];
    // Suggestions only move forward, so a manifest with thousands of collisions stays linear.
    let cursor = 1024;
    for (const use of uses) {
      const earlier = first.get(use.port);
      if (!earlier) {
        first.set(use.port, use);
        continue;
      }
      let free = Math.max(cursor, use.port + 1);
      while (taken.has(free) && free < 65535) free++;
      cursor = free + 1;
      out.push(
        finding(
          use.segments,
          `${keyPath(use.segments)} = ${use.port} is already used by ${earlier.label ?? keyPath(earlier.segments)}`,
          `give ${keyPath(use.segments)} a free port (for example ${free}), different from ${earlier.label ?? keyPath(earlier.segments)}`,
        ),
      );
    }
    return out;
  },
};

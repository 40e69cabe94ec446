// E026: the box runs as uid 1000 without capabilities, so it cannot bind ports below 1024.
import type { Rule } from './rule.js';
import { finding, keyPath } from './helpers/findings.js';
import { portUses } from './helpers/ports.js';

/** Every port the box listens on is 1024 or more. */
export const privilegedPort: Rule = {
  id: 'E026',
  alias: 'privileged-port',
  severity: 'error',
  summary: 'the api, metrics, relay and programme ports must be 1024 or more',
  check(m) {
    return portUses(m)
      .filter((use) => use.port < 1024)
      .map((use) =>
        finding(
          use.segments,
          `${keyPath(use.segments)} = ${use.port} is a privileged port, which the box (uid 1000, no capabilities) cannot bind`,
          `use a port of 1024 or more (for example ${use.port + 8000}) and map it to ${use.port} outside the box if needed`,
        ),
      );
  },
};

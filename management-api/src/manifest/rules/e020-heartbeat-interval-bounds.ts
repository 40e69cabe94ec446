// E020: too frequent heartbeats load the mesh host; too rare ones make eviction (three missed) take too long. The host
// tells its members the interval, so only a host's value is used.
import type { Rule } from './rule.js';
import { finding } from './helpers/findings.js';

const MIN_SEC = 5;
const MAX_SEC = 300;

/** On a mesh host, `mesh.heartbeat_interval_sec` is within 5..300. */
export const heartbeatIntervalBounds: Rule = {
  id: 'E020',
  alias: 'heartbeat-interval-bounds',
  severity: 'error',
  summary: `mesh.heartbeat_interval_sec must be within ${MIN_SEC}..${MAX_SEC} in mode host`,
  check(m) {
    const sec = m.mesh.heartbeat_interval_sec;
    if (m.mesh.mode !== 'host' || (sec >= MIN_SEC && sec <= MAX_SEC)) return [];
    return [
      finding(
        ['mesh', 'heartbeat_interval_sec'],
        `mesh.heartbeat_interval_sec = ${sec} is outside ${MIN_SEC}..${MAX_SEC} (the interval this host asks of its members)`,
        `use a value from ${MIN_SEC} to ${MAX_SEC}; the default is 30`,
      ),
    ];
  },
};

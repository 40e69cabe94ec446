// What an agent's own snapshots are charged to its disk budget, and what is left for the next one.
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { ApiError } from '../errors.js';
import type { SnapshotSummary } from './snapshot-manifest.js';
import type { SnapshotStore } from './snapshot-store.js';

/**
 * What one snapshot is charged to its agent's disk budget: the bytes it added to the store when it
 * was made (what it holds alone there, unless a snapshot it shared chunks with was deleted since), and, when it keeps a clone, its files'
 * size as well: the clone shares its blocks with the agent's directory only until the agent
 * rewrites them (the same bytes rewritten add nothing to the store, yet each clone keeps the old
 * blocks).
 */
const chargeOf = (store: SnapshotStore, s: SnapshotSummary): number => s.stats.addedBytes + (store.hasClone(s.id) ? s.stats.bytes : 0);

/**
 * An agent's own snapshots may not store more than its disk budget (`sandbox.limits.disk`): the
 * store lives on the box's state volume, so without a bound an agent could write, snapshot, delete
 * and write again until the volume is full and the box unready. Every snapshot of that agent name
 * still kept is charged (chargeOf); at the budget a further one is refused, and below it the
 * answer is what is left, which the capture's clone must fit. The operator's own snapshots are
 * bounded by the disk guard only.
 */
export function agentSnapshotAllowance(store: SnapshotStore, agent: AgentProcess): number | undefined {
  const budget = agent.limits?.disk_bytes;
  if (budget === undefined) return undefined;
  const held = store
    .list()
    .filter((s) => s.agent.name === agent.name)
    .reduce((sum, s) => sum + chargeOf(store, s), 0);
  if (held >= budget)
    throw new ApiError(
      'ABX_ERR_CONFLICT',
      `agent ${agent.name}'s snapshots already store ${held} bytes of their own, its disk budget (sandbox.limits.disk, ${budget} bytes): an operator deletes some (agentbox snapshot rm) before it makes another`,
    );
  return budget - held;
}

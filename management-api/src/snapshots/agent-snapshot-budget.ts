// What an agent's own snapshots are charged to its disk budget, and what is left for the next one.
import type { AgentProcess } from '../adapters/orchestrator/orchestrator-adapter.js';
import { ApiError } from '../errors.js';
import type { SnapshotStore } from './snapshot-store.js';

/**
 * An agent's own snapshots may not store more than its disk budget (`sandbox.limits.disk`): the
 * store lives on the box's state volume, so without a bound an agent could write, snapshot, delete
 * and write again until the volume is full and the box unready. Every snapshot of that agent name
 * still kept is charged the chunks it is the oldest snapshot to refer to (SnapshotStore.charges:
 * when an older snapshot it shares chunks with is deleted, those become its own, so no deletion
 * leaves bytes in the store that no budget pays for), and, when it keeps a clone, its files' size
 * as well: the clone shares its blocks with the agent's directory only until the agent rewrites
 * them (the same bytes rewritten add nothing to the store, yet each clone keeps the old blocks);
 * and each its record (its entries and summary files), which a snapshot of an unchanged tree
 * writes whole though it adds no chunk.
 * At the budget a further snapshot is refused, and below it the answer is what is left, which the
 * capture's clone must fit. The operator's own snapshots are bounded by the disk guard only.
 */
export async function agentSnapshotAllowance(store: SnapshotStore, agent: AgentProcess): Promise<number | undefined> {
  const budget = agent.limits?.disk_bytes;
  if (budget === undefined) return undefined;
  const charged = await store.charges();
  const own = store.list().filter((s) => s.agent.name === agent.name);
  // Its record too: snapshots of an unchanged tree add no chunk, and would otherwise fill the state volume with entries files free of charge.
  const records = await Promise.all(own.map((s) => store.recordBytes(s)));
  const recordBytes = records.reduce((sum, n) => sum + n, 0);
  const held = own.reduce((sum, s) => sum + charged(s) + (store.hasClone(s.id) ? s.stats.bytes : 0), recordBytes);
  if (held >= budget)
    throw new ApiError(
      'ABX_ERR_CONFLICT',
      `agent ${agent.name}'s snapshots already store ${held} bytes of their own, its disk budget (sandbox.limits.disk, ${budget} bytes): an operator deletes some (agentbox snapshot rm) before it makes another (${recordBytes} bytes of those are their records, the entries and summary files)`,
    );
  return budget - held;
}

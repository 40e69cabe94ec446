// Metrics of workspace snapshots, registered with the API's other metrics (bounded labels only: operations and outcomes, never an id).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SnapshotMetrics {
  /** `agentbox_snapshot_operations_total`: by operation (create, restore, fork, warm, delete) and outcome (ok, disk-full, error). */
  operations: Counter<'operation' | 'outcome'>;
  /** `agentbox_snapshot_operation_seconds`: how long each operation took, by operation. */
  duration: Histogram<'operation'>;
  /** `agentbox_snapshot_added_bytes_total`: bytes new snapshots wrote to the store (after deduplication). */
  addedBytes: Counter;
  /** `agentbox_snapshot_freed_bytes_total`: bytes of objects removed when no snapshot referred to them any more. */
  freedBytes: Counter;
  /** `agentbox_snapshots`: snapshots in the store. */
  count: Gauge;
  /** `agentbox_snapshot_warm_forks`: copies built ahead for forks, by state (wanted, ready), over every snapshot. */
  warmForks: Gauge<'state'>;
}

// A small workspace snapshots in milliseconds, a gigabyte in seconds.
const buckets = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createSnapshotMetrics(registry: Registry): SnapshotMetrics {
  const registers = [registry];
  return {
    operations: new Counter({
      name: 'agentbox_snapshot_operations_total',
      help: 'Workspace snapshot operations by operation (create, restore, fork, warm, delete) and outcome (ok, disk-full, error).',
      labelNames: ['operation', 'outcome'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'agentbox_snapshot_operation_seconds',
      help: 'Time of workspace snapshot operations, by operation.',
      labelNames: ['operation'] as const,
      buckets,
      registers,
    }),
    addedBytes: new Counter({
      name: 'agentbox_snapshot_added_bytes_total',
      help: 'Bytes new workspace snapshots wrote to the snapshot store, after deduplication.',
      registers,
    }),
    freedBytes: new Counter({
      name: 'agentbox_snapshot_freed_bytes_total',
      help: 'Bytes of snapshot store objects removed once no snapshot referred to them.',
      registers,
    }),
    count: new Gauge({ name: 'agentbox_snapshots', help: 'Workspace snapshots in the snapshot store.', registers }),
    warmForks: new Gauge({
      name: 'agentbox_snapshot_warm_forks',
      help: 'Copies of snapshots built ahead for forks, by state: wanted (asked for), ready (built and waiting).',
      labelNames: ['state'] as const,
      registers,
    }),
  };
}

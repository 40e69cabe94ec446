// Prometheus metrics of agent accounting: totals over all agents and terminations by reason, never per agent.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { LIMIT_REASONS, type LimitReason } from './budgets.js';

/** The accounting metrics; labels are bounded (a memory kind, a limit reason), never an agent id. */
export interface LimitMetrics {
  /** `agentbox_agents_accounted`: live agents the sampler follows. */
  agents: Gauge;
  /** `agentbox_agent_memory_bytes{kind}`: RSS and PSS summed over live agents. */
  memory: Gauge<'kind'>;
  /** `agentbox_agent_processes`: processes of live agents, summed. */
  processes: Gauge;
  /** `agentbox_agent_cpu_seconds_total`: CPU time agents used (sampled growth, ended agents included). */
  cpu: Counter;
  /** `agentbox_agent_peak_memory_bytes`: each ended agent's highest sampled PSS. */
  peakMemory: Histogram;
  /** `agentbox_agent_limit_terminations_total{reason}`: agents ended for going over a budget. */
  terminations: Counter<'reason'>;
  /** `agentbox_agent_sample_duration_seconds`: the cost of one sample of every agent. */
  sampleDuration: Histogram;
  /** `agentbox_agent_samples_dropped_total`: timer ticks skipped because the previous sample was still under way. */
  samplesDropped: Counter;
  /** `agentbox_agent_memory_estimates_total`: processes whose memory a sample estimated because their smaps_rollup read had not answered in time. */
  memoryEstimates: Counter;
}

const MIB = 1024 ** 2;

/** Register the accounting metrics in `registry`, terminations pre-set to 0 for every reason. */
export function createLimitMetrics(registry: Registry): LimitMetrics {
  const registers = [registry];
  const terminations = new Counter({
    name: 'agentbox_agent_limit_terminations_total',
    help: 'Agents the orchestrator terminated for going over a budget, by reason (limit:memory, limit:cpu, limit:processes, limit:disk, limit:entries, limit:inotify).',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of LIMIT_REASONS) terminations.inc({ reason } satisfies { reason: LimitReason }, 0);
  return {
    agents: new Gauge({ name: 'agentbox_agents_accounted', help: 'Live agents whose processes are sampled from /proc.', registers }),
    memory: new Gauge({
      name: 'agentbox_agent_memory_bytes',
      help: 'Memory of all live agents at the last sample, by kind (rss, pss).',
      labelNames: ['kind'] as const,
      registers,
    }),
    processes: new Gauge({ name: 'agentbox_agent_processes', help: 'Processes of all live agents at the last sample.', registers }),
    cpu: new Counter({ name: 'agentbox_agent_cpu_seconds_total', help: 'CPU seconds used by agents (user and system), as sampled.', registers }),
    peakMemory: new Histogram({
      name: 'agentbox_agent_peak_memory_bytes',
      help: 'Highest sampled PSS of each ended agent.',
      buckets: [16, 64, 128, 256, 512, 1024, 2048, 4096, 8192].map((m) => m * MIB),
      registers,
    }),
    terminations,
    sampleDuration: new Histogram({
      name: 'agentbox_agent_sample_duration_seconds',
      help: 'Time one sample of every agent takes (a scan of /proc; the event loop keeps turning meanwhile).',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers,
    }),
    samplesDropped: new Counter({
      name: 'agentbox_agent_samples_dropped_total',
      help: 'Sampling ticks skipped because the previous sample of the agents was still under way.',
      registers,
    }),
    memoryEstimates: new Counter({
      name: 'agentbox_agent_memory_estimates_total',
      help: 'Processes whose memory a sample estimated from their stat line (last PSS plus resident growth) because their smaps_rollup read had not answered in time.',
      registers,
    }),
  };
}

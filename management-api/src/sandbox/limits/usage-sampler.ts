// One sampler for every agent: each tick reads the agents' processes once (their trees, or all of /proc), attributes them to agents and sums their use.
import { ProcessTable, procKey, type ProcKey } from './agent-tree.js';
import { INOTIFY_WATCHES, type AgentUsage } from './budgets.js';
import { heldTotals, readHeldFiles, type HeldTotals } from './held-files.js';
import { MemoryReader } from './memory-reads.js';
import { listPidsAsync, readStatsSliced, readSubtreesSliced } from './proc-read-async.js';
import { CLOCK_TICKS, readStat, type ProcMemory, type ProcStat } from './proc-stat.js';

/** An agent the sampler follows. */
export interface SampledAgent {
  readonly id: string;
  /** The agent's pid: its process group and session id. */
  readonly leader: number;
  /** Processes of the tree that are the sandbox's own (the shell and bubblewrap around the agent, the forwarder). */
  readonly overhead: number;
  /** Every process of the agent descends from `leader`, orphans included (see {@link AgentTreeShape.contained}). */
  readonly contained: boolean;
  /** Figures as of the last sample; kept when the agent is no longer followed. */
  usage: AgentUsage;
  /** Highest PSS seen. */
  peakPss: number;
  /** What its processes held open at the last sample: memfd bytes (in `usage.memfd_bytes` too) and deleted files' bytes by device (see held-files.ts). */
  held: HeldTotals;
  /** The processes attributed at the last sample (pid and stat), e.g. to signal those outside the group. */
  members: ProcStat[];
  /** @internal attribution and CPU bookkeeping across samples. */
  readonly state: { leaderStart: number; known: Set<ProcKey>; last: Map<ProcKey, { ticks: number; ppid: number }>; carriedTicks: number };
}

/** What the sampler is told of an agent's tree when it starts following it. */
export interface AgentTreeShape {
  /** Processes of the tree that are the sandbox's own, not counted in its process figure. */
  overhead?: number;
  /**
   * Every process the agent starts stays a descendant of its leader, however it detaches: the
   * launcher's keeper is their subreaper (an orphan is re-parented to it, not to init), and under
   * bubblewrap the PID namespace's init is. Such an agent is found by walking its tree; one that
   * is not (the sandbox is off) needs its session and group looked up in all of /proc.
   */
  contained?: boolean;
}

/** What one tick reports, for metrics and tests. */
export interface SampleReport {
  /** Wall time of the tick in seconds. */
  seconds: number;
  /** CPU seconds agents used since the previous tick (growth only). */
  cpuGrowth: number;
  /** Processes whose memory was estimated from their stat line: their smaps_rollup read had not answered in time (memory-reads.ts). */
  memoryEstimates: number;
}

/**
 * Follows agents' process trees; `sample()` is one pass that gives the event loop a turn between
 * short slices of reads (proc-read-async.ts): over the agents' trees when every agent is contained,
 * so its cost follows the agents' processes and not the machine's, else over all of /proc. The
 * caller runs one sample at a time.
 */
export class UsageSampler {
  readonly #agents = new Map<string, SampledAgent>();
  readonly #memory: MemoryReader;

  /** `memoryWaitMs`: how long a sample waits for smaps_rollup reads (default MEMORY_READ_WAIT_MS). */
  constructor(
    private readonly procRoot = '/proc',
    memoryWaitMs?: number,
  ) {
    this.#memory = new MemoryReader(procRoot, memoryWaitMs);
  }

  /** smaps_rollup reads started by a sample that have not answered yet. */
  get pendingMemoryReads(): number {
    return this.#memory.pending;
  }

  /** Agents followed now. */
  get size(): number {
    return this.#agents.size;
  }

  /** Start following the agent led by `leader` (its figures start at zero), whose tree is as `shape` says. */
  follow(id: string, leader: number, shape: AgentTreeShape = {}): SampledAgent {
    const agent: SampledAgent = {
      id,
      leader,
      overhead: shape.overhead ?? 0,
      contained: shape.contained ?? false,
      usage: { rss_bytes: 0, pss_bytes: 0, cpu_seconds: 0, processes: 0 },
      peakPss: 0,
      held: { memfdBytes: 0, deletedBytes: new Map(), inotifyInstances: 0, inotifyWatches: 0 },
      members: [],
      // -1 when the leader is already gone: its group and session still find what it left.
      state: { leaderStart: readStat(leader, this.procRoot)?.startTime ?? -1, known: new Set(), last: new Map(), carriedTicks: 0 },
    };
    this.#agents.set(id, agent);
    return agent;
  }

  /** Stop following `id`; its record keeps the last figures. */
  unfollow(id: string): SampledAgent | undefined {
    const agent = this.#agents.get(id);
    this.#agents.delete(id);
    return agent;
  }

  /**
   * Sample every followed agent. Processes may end at any point of the pass: a stat or memory
   * file that is gone (ENOENT) or refuses the read (ESRCH) drops that process from this sample.
   * An agent followed during the pass is measured from the next one; one unfollowed during it
   * keeps the figures it had.
   */
  async sample(pids?: readonly number[]): Promise<SampleReport> {
    const started = process.hrtime.bigint();
    const table = new ProcessTable(await this.#readStats(pids));
    // Attribution first for every agent (from the one table), then the memory of all members in
    // one bounded batch, then the sums.
    const plans = [...this.#agents.values()].map((agent) => ({ agent, members: table.members(agent.leader, agent.state.leaderStart, agent.state.known) }));
    const all = plans.flatMap((p) => p.members);
    const { memories, estimated } = await this.#memory.read(all);
    const held = await readHeldFiles(all, this.procRoot, INOTIFY_WATCHES + 1);
    let cpuGrowth = 0;
    let at = 0;
    for (const { agent, members } of plans) {
      const own = memories.slice(at, at + members.length);
      const ownHeld = held.slice(at, (at += members.length));
      if (this.#agents.get(agent.id) === agent) cpuGrowth += this.#measure(agent, members, own, heldTotals(ownHeld));
    }
    return { seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuGrowth, memoryEstimates: estimated };
  }

  /** The stats attribution needs: of `pids` when given, else of the agents' trees when all are contained, else of all of /proc. */
  async #readStats(pids: readonly number[] | undefined): Promise<ProcStat[]> {
    if (pids) return readStatsSliced(pids, this.procRoot);
    const agents = [...this.#agents.values()];
    if (agents.length > 0 && agents.every((a) => a.contained)) {
      // The leaders, and what was the agents' at the last sample: a process whose leader has gone
      // (killed from outside) is found from itself.
      const roots = agents.flatMap((a) => [a.leader, ...[...a.state.known].map((key) => Number(key.slice(0, key.indexOf(':'))))]);
      return readSubtreesSliced(roots, this.procRoot);
    }
    return readStatsSliced(await listPidsAsync(this.procRoot), this.procRoot);
  }

  #measure(agent: SampledAgent, members: ProcStat[], memories: readonly ProcMemory[], held: HeldTotals): number {
    const { state } = agent;
    const now = new Map<ProcKey, { ticks: number; ppid: number }>();
    let rss = 0;
    let pss = 0;
    let ticks = 0;
    members.forEach((s, i) => {
      const memory = memories[i]!;
      rss += memory.rss;
      pss += memory.pss;
      // Own time plus that of children it has reaped: a reaped child's time moves into its
      // parent's, so every process is counted once, alive or gone.
      ticks += s.ownTicks + s.reapedTicks;
      now.set(procKey(s), { ticks: s.ownTicks + s.reapedTicks, ppid: s.ppid });
    });
    const memberPids = new Set(members.map((s) => s.pid));
    for (const [key, before] of state.last) {
      // A process that ended under a parent outside the agent (init, after a setsid) took its
      // time with it: keep what it had used.
      if (!now.has(key) && !memberPids.has(before.ppid)) state.carriedTicks += before.ticks;
    }
    state.last = now;
    state.known = new Set(now.keys());
    const cpu = Math.max(agent.usage.cpu_seconds, (ticks + state.carriedTicks) / CLOCK_TICKS);
    const growth = cpu - agent.usage.cpu_seconds;
    agent.usage = {
      rss_bytes: rss,
      pss_bytes: pss,
      memfd_bytes: held.memfdBytes,
      inotify_instances: held.inotifyInstances,
      inotify_watches: held.inotifyWatches,
      cpu_seconds: cpu,
      processes: Math.max(0, members.length - agent.overhead),
    };
    agent.held = held;
    agent.peakPss = Math.max(agent.peakPss, pss + held.memfdBytes);
    agent.members = members;
    return growth;
  }
}

// Limits and accounting of the local orchestrator's agents: one sampler for all of them, budgets enforced with a reason.
import { statSync } from 'node:fs';
import type { Logger } from 'pino';
import { overBudget, type AgentLimits, type AgentUsage, type LimitReason, type LimitSettings, type RequestedLimits } from './budgets.js';
import { DiskSampler, type DiskFigure } from './disk-sampler.js';
import type { LimitMetrics } from './metrics.js';
import { resolveLimits } from './request.js';
import { readStat, type ProcStat } from './proc-stat.js';
import { UsageSampler, type AgentTreeShape, type SampledAgent } from './usage-sampler.js';

/** How often every agent is sampled. */
export const SAMPLE_INTERVAL_MS = 1_000;
/** An agent over a budget gets this long after SIGTERM before SIGKILL. */
export const LIMIT_GRACE_MS = 2_000;
/** How often agents' directories are walked: a walk costs far more than a /proc sample. */
export const DISK_INTERVAL_MS = 5_000;

/** How accounting is set up. */
export interface AccountingOptions {
  /** `sandbox.limits`: every agent's budgets and the most a spawn request may ask. None: only what a request asks. */
  ceiling?: LimitSettings;
  metrics?: LimitMetrics;
  logger: Logger;
  intervalMs?: number;
  /** Between two walks of the agents' directories (default {@link DISK_INTERVAL_MS}). */
  diskIntervalMs?: number;
  procRoot?: string;
  /** How long a sample waits for smaps_rollup reads before it estimates the rest (default MEMORY_READ_WAIT_MS). */
  memoryWaitMs?: number;
}

/** What an agent's record gains: its budgets, its last figures and, when it was ended over a budget, why. */
export interface AgentAccount {
  limits: AgentLimits;
  usage: AgentUsage;
  reason?: LimitReason;
}

/** Ends the agent (SIGTERM to its group, SIGKILL after a grace): the process manager's terminate. */
export type Terminate = () => Promise<unknown>;

interface Entry {
  sampled: SampledAgent;
  limits: AgentLimits;
  terminate: Terminate;
  live: boolean;
  reason?: LimitReason;
  /** The directories whose disk use counts against the agent (its working and temporary directories). */
  directories: readonly string[];
  /** The devices those directories are on: a deleted file the agent holds open there counts against its disk. */
  devices: ReadonlySet<number>;
  disk?: DiskFigure;
}

/** The accounting of one orchestrator's agents. The sampler runs only while some agent lives. */
export class AgentAccounting {
  readonly #sampler: UsageSampler;
  readonly #disk = new DiskSampler();
  readonly #entries = new Map<string, Entry>();
  #timer: NodeJS.Timeout | undefined;
  #diskTimer: NodeJS.Timeout | undefined;
  #waiters: Array<() => void> = [];
  /** The sample under way: at most one at a time. */
  #inFlight: Promise<void> | undefined;

  constructor(private readonly options: AccountingOptions) {
    this.#sampler = new UsageSampler(options.procRoot, options.memoryWaitMs);
  }

  /** The budgets of an agent a spawn request asks for; AdapterInputError (400) when it asks more than the manifest allows. */
  limitsFor(requested: RequestedLimits | undefined): AgentLimits {
    return resolveLimits(this.options.ceiling, requested);
  }

  /**
   * Account the agent `id` led by `pid` from now on; `terminate` ends it when it goes over a
   * budget. `tree`: its shape (the sandbox's own processes, whether all its processes stay under
   * `pid`) and `directories`, where its disk use is measured (its working directory and private
   * temporary directory); none, no disk figure.
   */
  follow(id: string, pid: number, limits: AgentLimits, terminate: Terminate, tree: AgentTreeShape & { directories?: readonly string[] } = {}): void {
    const dirs = tree.directories ?? [];
    this.#entries.set(id, { sampled: this.#sampler.follow(id, pid, tree), limits, terminate, live: true, directories: dirs, devices: devicesOf(dirs) });
    this.#timer ??= setInterval(() => this.#tick(), this.options.intervalMs ?? SAMPLE_INTERVAL_MS).unref();
    if (dirs.length > 0) this.#diskTimer ??= setInterval(() => this.#diskTick(), this.options.diskIntervalMs ?? DISK_INTERVAL_MS).unref();
  }

  /**
   * The sandbox itself ended agent `id` over `reason` (the keeper's memory backstop, which acts
   * between two samples): recorded as if the accounting had, with no second terminate.
   */
  endedBySandbox(id: string, reason: LimitReason, detail: Record<string, unknown> = {}): void {
    const entry = this.#entries.get(id);
    if (!entry || entry.reason) return;
    entry.reason = reason;
    this.options.metrics?.terminations.inc({ reason });
    this.options.logger.warn(
      { event: 'AgentLimitExceeded', agent: id, reason, ...detail, usage: entry.sampled.usage, limits: entry.limits },
      `agent ${id} went over its budget (${reason}): the sandbox ended it`,
    );
  }

  /** The agent has exited: its figures stay as last sampled. */
  ended(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry?.live) return;
    entry.live = false;
    this.#sampler.unfollow(id);
    this.options.metrics?.peakMemory.observe(entry.sampled.peakPss);
    if (this.#sampler.size === 0) this.close();
    this.#publish();
  }

  /** What to add to the agent's record; undefined for an agent not accounted here. */
  account(id: string): AgentAccount | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    const held = heldDeletedBytes(entry);
    const disk = entry.disk
      ? { disk_bytes: entry.disk.bytes + held, disk_entries: entry.disk.entries, disk_measured_at: new Date(entry.disk.startedAtMs).toISOString() }
      : held > 0
        ? { disk_bytes: held }
        : {};
    return { limits: { ...entry.limits }, usage: { ...entry.sampled.usage, ...disk }, ...(entry.reason ? { reason: entry.reason } : {}) };
  }

  /** The highest PSS of the agent's tree any sample saw; undefined for an agent not accounted here. */
  peakPss(id: string): number | undefined {
    return this.#entries.get(id)?.sampled.peakPss;
  }

  /** Drop the record of an agent the orchestrator no longer keeps. */
  forget(id: string): void {
    this.ended(id);
    this.#entries.delete(id);
  }

  /**
   * Sample every live agent and enforce the budgets (the timer calls this each interval). The
   * event loop keeps turning during the sample. While one is under way, a call joins it rather
   * than starting a second pass over /proc.
   */
  sample(): Promise<void> {
    this.#inFlight ??= this.#sampleOnce().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #sampleOnce(): Promise<void> {
    // Waiters that came before this sample began; those that come during it wait for the next.
    const waiters = this.#waiters;
    this.#waiters = [];
    const report = await this.#sampler.sample().catch((err: unknown) => {
      // A failed sample leaves its waiters for the next one.
      this.#waiters.unshift(...waiters);
      throw err;
    });
    const metrics = this.options.metrics;
    metrics?.sampleDuration.observe(report.seconds);
    if (report.cpuGrowth > 0) metrics?.cpu.inc(report.cpuGrowth);
    if (report.memoryEstimates > 0) metrics?.memoryEstimates.inc(report.memoryEstimates);
    this.#publish();
    for (const [id, entry] of this.#entries) {
      if (!entry.live || entry.reason) continue;
      const reason = overBudget(entry.sampled.usage, entry.limits) ?? (overDisk(entry) ? 'limit:disk' : undefined);
      if (reason) this.#enforce(id, entry, reason);
    }
    for (const resolve of waiters) resolve();
  }

  /** Resolves once a sample that began after this call has completed. */
  nextSample(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Walk the directories of every live agent that has some and end those over their disk budget,
   * or whose tree cannot be measured (disk-sampler.ts). One walk at a time: a call during one joins it.
   */
  sampleDisk(): Promise<void> {
    return this.#disk.run(this.#diskTargets(), (id, figure) => {
      const entry = this.#entries.get(id);
      if (!entry?.live) return;
      entry.disk = figure;
      if (entry.reason) return;
      if (figure.overEntries) this.#enforce(id, entry, 'limit:entries');
      else if (figure.unmeasurable !== undefined || overDisk(entry)) this.#enforce(id, entry, 'limit:disk');
    });
  }

  /** Stop sampling (figures stay readable). */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    clearInterval(this.#diskTimer);
    this.#diskTimer = undefined;
  }

  #diskTargets(): Array<{ id: string; directories: readonly string[]; budget?: number }> {
    const targets = [];
    for (const [id, entry] of this.#entries) {
      if (entry.live && !entry.reason && entry.directories.length > 0)
        targets.push({
          id,
          directories: entry.directories,
          ...(entry.limits.disk_bytes !== undefined ? { budget: entry.limits.disk_bytes } : {}),
          ...(entry.limits.entries !== undefined ? { maxEntries: entry.limits.entries } : {}),
        });
    }
    return targets;
  }

  #diskTick(): void {
    // A walk still under way (a big tree, a slow disk), or one that ended too recently for its
    // length (disk-sampler.ts, WALK_PACE): this tick is dropped, never queued.
    if (!this.#disk.due()) return;
    this.sampleDisk().catch((err: unknown) => {
      this.options.logger.error({ event: 'AgentDiskSamplingFailed', err }, "could not measure the agents' directories");
    });
  }

  #tick(): void {
    // A sample still under way when the next is due (a slow /proc read, a loaded machine): this
    // tick is dropped, not queued, so late samples never pile up behind each other.
    if (this.#inFlight) {
      this.options.metrics?.samplesDropped.inc();
      return;
    }
    this.sample().catch((err: unknown) => {
      // A rejection left unhandled would end the API: an unreadable /proc costs one sample only.
      this.options.logger.error({ event: 'AgentSamplingFailed', err }, 'could not sample the agents from /proc');
    });
  }

  #enforce(id: string, entry: Entry, reason: LimitReason): void {
    entry.reason = reason;
    this.options.metrics?.terminations.inc({ reason });
    const { usage, leader, members } = entry.sampled;
    // A disk figure that is not the whole tree says why (unreadable path, entry cap): the reason is logged, the agent ended.
    const disk = entry.disk ? { disk: entry.disk } : {};
    const unmeasurable = entry.disk?.unmeasurable;
    const whyOf: Partial<Record<LimitReason, string>> = unmeasurable
      ? { 'limit:entries': `: its directories hold ${unmeasurable}`, 'limit:disk': `; its directories cannot be measured: ${unmeasurable}` }
      : {};
    const why = whyOf[reason] ?? '';
    this.options.logger.warn(
      { event: 'AgentLimitExceeded', agent: id, reason, usage, ...disk, limits: entry.limits },
      `agent ${id} went over its budget (${reason}${why}): terminating it`,
    );
    // The process group reaches most of the tree; processes that left it (setpgid, setsid) are
    // signalled one by one, SIGTERM with the group and SIGKILL once the group is gone.
    const strays = members.filter((s) => s.pgrp !== leader);
    signalEach(strays, 'SIGTERM', this.options.procRoot);
    entry.terminate().then(
      () => signalEach(strays, 'SIGKILL', this.options.procRoot),
      (err: unknown) =>
        this.options.logger.error({ event: 'AgentLimitTerminateFailed', agent: id, reason, err }, `could not terminate agent ${id} over its budget`),
    );
  }

  #publish(): void {
    const metrics = this.options.metrics;
    if (!metrics) return;
    let rss = 0;
    let pss = 0;
    let processes = 0;
    for (const entry of this.#entries.values()) {
      if (!entry.live) continue;
      rss += entry.sampled.usage.rss_bytes;
      pss += entry.sampled.usage.pss_bytes;
      processes += entry.sampled.usage.processes;
    }
    metrics.agents.set(this.#sampler.size);
    metrics.memory.set({ kind: 'rss' }, rss);
    metrics.memory.set({ kind: 'pss' }, pss);
    metrics.processes.set(processes);
  }
}

/**
 * Bytes of files the agent deleted while holding them open, on the devices of its directories (as
 * of the last sample): no walk finds them, yet they take the disk until the last descriptor closes.
 */
function heldDeletedBytes(entry: Entry): number {
  let bytes = 0;
  for (const [dev, n] of entry.sampled.held.deletedBytes) if (entry.devices.has(dev)) bytes += n;
  return bytes;
}

/** The agent's disk (the last walk's figure plus what it holds deleted) is past its budget. */
function overDisk(entry: Entry): boolean {
  const budget = entry.limits.disk_bytes;
  return budget !== undefined && (entry.disk?.bytes ?? 0) + heldDeletedBytes(entry) > budget;
}

/** The devices of `dirs` (those that cannot be read are left out). */
function devicesOf(dirs: readonly string[]): Set<number> {
  const devices = new Set<number>();
  for (const dir of dirs) {
    try {
      devices.add(statSync(dir).dev);
    } catch {
      // Not there (yet): the walk reports it.
    }
  }
  return devices;
}

function signalEach(processes: readonly ProcStat[], signal: NodeJS.Signals, procRoot?: string): void {
  for (const s of processes) {
    // Only the very process seen at the sample: its pid may have been reused since.
    if (readStat(s.pid, procRoot)?.startTime !== s.startTime) continue;
    try {
      process.kill(s.pid, signal);
    } catch {
      // Gone meanwhile.
    }
  }
}

// The cost of agent accounting: samples of 20 agents (3 processes each) through the real process manager: the longest hold of the event loop, wall and CPU — agents under the launcher (their trees walked) and with the sandbox off (all of /proc scanned), against the synchronous reads the sampler used before.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { AgentSandbox } from '../../management-api/src/sandbox/agent-sandbox.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';
import { ProcessTable } from '../../management-api/src/sandbox/limits/agent-tree.js';
import { listPids, readMemory, readStat, type ProcStat } from '../../management-api/src/sandbox/limits/proc-stat.js';
import { median, ms, quantile, table } from './stats.js';

const AGENTS = 20;
const SAMPLES = 300;

/**
 * The baseline: the reads one sample made before it gave the event loop turns (every stat line,
 * then the memory of every agent's members, all synchronous). Kept here only to compare.
 */
function syncReads(leaders: readonly number[]): void {
  const stats: ProcStat[] = [];
  for (const pid of listPids()) {
    const s = readStat(pid);
    if (s) stats.push(s);
  }
  const procTable = new ProcessTable(stats);
  for (const leader of leaders) for (const s of procTable.members(leader, procTable.byPid.get(leader)?.startTime ?? -1, new Set())) readMemory(s);
}

interface Figures {
  /** The longest the event loop went without a turn during the sample, ms. */
  held: number[];
  wall: number[];
  cpu: number[];
}

/**
 * One run of `sample` from inside the event loop while a probe (a chain of setImmediate) records
 * the longest gap between two of its turns: the longest the loop was held (on a loaded machine,
 * time the process waited for a core counts too: the idle row shows that floor).
 */
async function once(sample: () => Promise<void> | void, into: Figures): Promise<void> {
  let longest = 0;
  let last = performance.now();
  let probing = true;
  const probe = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (probing) setImmediate(probe);
  };
  setImmediate(probe);
  await new Promise((resolve) => setImmediate(resolve));
  const before = process.cpuUsage();
  const started = performance.now();
  await new Promise<void>((resolve, reject) => setImmediate(() => Promise.resolve(sample()).then(resolve, reject)));
  into.wall.push(performance.now() - started);
  const used = process.cpuUsage(before);
  into.cpu.push((used.user + used.system) / 1000);
  // One more turn, so a sample that held the loop to its end is seen by the probe.
  await new Promise((resolve) => setImmediate(resolve));
  probing = false;
  into.held.push(longest);
}

/** SAMPLES runs of each of `samplers`, interleaved so load from elsewhere on the machine falls on all alike. */
async function measure(samplers: ReadonlyArray<() => Promise<void> | void>): Promise<Figures[]> {
  const figures = samplers.map((): Figures => ({ held: [], wall: [], cpu: [] }));
  for (let i = 0; i < SAMPLES; i++) for (const [k, sample] of samplers.entries()) await once(sample, figures[k]!);
  return figures;
}

const CEILING = { memory: '2g', cpu_seconds: 3600, processes: 128, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };

/** A process manager with accounting of its own (sampled only when the benchmark says: an hour between timer ticks), its agents confined by the launcher alone or not at all. */
async function accountedManager(dir: string, launcher: boolean): Promise<{ manager: ProcessManager; accounting: AgentAccounting }> {
  const paths = runtimePaths({ AGENTBOX_ROOT: path.join(dir, launcher ? 'launcher' : 'plain') });
  const logger = createLogger({ level: 'silent' });
  const accounting = new AgentAccounting({ logger, ceiling: CEILING, intervalMs: 3_600_000 });
  const sandbox = new AgentSandbox({ enabled: launcher, namespaces: 'off', limits: CEILING, egressPort: () => 3128, apiPort: () => 9090, paths });
  const manager = new ProcessManager({ workspaceDir: paths.workspaceDir, parentEnv: { PATH: process.env['PATH'] }, logger, accounting, sandbox });
  await manager.start();
  const capability = await sandbox.start();
  if (launcher && !capability.enforceable)
    throw new Error(`limits bench: the launcher cannot confine agents here: ${capability.missing} (build it with node scripts/build/build-launcher.mjs)`);
  for (let i = 0; i < AGENTS; i++) await manager.spawn({ name: `bench-${i}`, command: '/bin/sh', args: ['-c', 'sleep 600 & sleep 600 & wait'] });
  // Until every agent shows its three processes.
  for (;;) {
    await accounting.sample();
    if (manager.list().every((a) => a.usage?.processes === 3)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { manager, accounting };
}

/** Run the accounting benchmark and return its report. */
export async function runLimitsBench(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-limits-bench-'));
  // A root box runs agents as uids of their own, which must be able to reach their workspaces.
  chmodSync(dir, 0o711);
  const started: ProcessManager[] = [];
  try {
    const plain = await accountedManager(dir, false);
    started.push(plain.manager);
    const confined = await accountedManager(dir, true);
    started.push(confined.manager);
    const leaders = plain.manager.list().flatMap((a) => (a.pid === undefined ? [] : [a.pid]));
    const [idle, before, scan, walk] = await measure([
      () => undefined,
      () => syncReads(leaders),
      () => plain.accounting.sample(),
      () => confined.accounting.sample(),
    ]);
    const processes = listPids().length;
    const row = (name: string, f: Figures): string[][] => [
      [`${name}: event loop held (longest)`, ms(median(f.held)), ms(quantile(f.held, 0.95)), ms(Math.max(...f.held))],
      [`${name}: wall`, ms(median(f.wall)), ms(quantile(f.wall, 0.95)), ms(Math.max(...f.wall))],
      [`${name}: CPU (user + system, all threads)`, ms(median(f.cpu)), ms(quantile(f.cpu, 0.95)), ms(Math.max(...f.cpu))],
    ];
    return [
      `Agent accounting — ${AGENTS} agents × 3 processes per mode, ${processes} processes on the machine, ${SAMPLES} samples each (interleaved), load average ${loadavg()[0]!.toFixed(2)} on ${cpus().length} CPUs, Node ${process.version}`,
      '',
      table(
        ['per sample', 'p50', 'p95', 'max'],
        [
          [`no sample (the probe alone): event loop held (longest)`, ms(median(idle!.held)), ms(quantile(idle!.held, 0.95)), ms(Math.max(...idle!.held))],
          ...row('before (synchronous reads of all of /proc, sandbox off)', before!),
          ...row('sandbox off (all of /proc in slices, smaps_rollup on the thread pool)', scan!),
          ...row('launcher alone (the agents’ trees walked in slices)', walk!),
        ],
      ),
      '',
      `At one sample a second: ${(median(walk!.cpu) / 10).toFixed(2)} % of one core under the launcher, ${(median(scan!.cpu) / 10).toFixed(2)} % with the sandbox off, ${(median(before!.cpu) / 10).toFixed(2)} % before.`,
    ].join('\n');
  } finally {
    for (const manager of started) await manager.closeAll(0);
    rmSync(dir, { recursive: true, force: true });
  }
}

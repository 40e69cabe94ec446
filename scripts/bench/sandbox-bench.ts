// Spawn → first output byte of an agent through the real process manager: plain (sandbox.enabled = false), the launcher, and bubblewrap around it, interleaved in one run.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { AgentSandbox } from '../../management-api/src/sandbox/agent-sandbox.js';
import type { NamespacesSetting } from '../../management-api/src/sandbox/namespace-sandbox.js';
import { median, ms, quantile, table } from './stats.js';

const RUNS = Number(process.env['AGENTBOX_BENCH_SANDBOX_RUNS'] ?? 60);
const WARMUP = 5;
const LIMITS = { memory: '2g', cpu_seconds: 3600, processes: 128, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };

interface Mode {
  label: string;
  enabled: boolean;
  namespaces: NamespacesSetting;
}

const MODES: Mode[] = [
  { label: 'plain spawn (sandbox.enabled = false)', enabled: false, namespaces: 'off' },
  { label: 'launcher: Landlock + seccomp + rlimits', enabled: true, namespaces: 'off' },
  { label: 'bubblewrap around the launcher (+ forwarder)', enabled: true, namespaces: 'required' },
];

/** A process manager for `mode` in its own box root under `dir`. */
async function managerFor(dir: string, mode: Mode, i: number): Promise<{ manager: ProcessManager; sandbox: AgentSandbox }> {
  const paths = runtimePaths({ AGENTBOX_ROOT: path.join(dir, `box-${i}`) });
  const logger = createLogger({ level: 'silent' });
  // The API's port: an agent in bubblewrap gets a forwarder to it whether or not anything answers.
  const sandbox = new AgentSandbox({ enabled: mode.enabled, namespaces: mode.namespaces, limits: LIMITS, egressPort: () => 3128, apiPort: () => 9090, paths });
  const manager = new ProcessManager({ workspaceDir: paths.workspaceDir, parentEnv: { PATH: process.env['PATH'] }, logger, sandbox });
  await manager.start();
  const capability = await sandbox.start();
  if (mode.enabled && !capability.enforceable)
    throw new Error(`sandbox bench: the launcher cannot confine agents here: ${capability.missing} (build it with node scripts/build/build-launcher.mjs)`);
  return { manager, sandbox };
}

/** Milliseconds from the spawn call to the first byte of the agent's output. */
async function firstByte(manager: ProcessManager, name: string): Promise<number> {
  const started = performance.now();
  const agent = await manager.spawn({ name, command: '/bin/echo', args: ['ready'] });
  for await (const chunk of manager.output(agent.id, { after: 0, follow: true, signal: AbortSignal.timeout(30_000) })) {
    if (chunk.text.length > 0) {
      const elapsed = performance.now() - started;
      // Wait for the end, so the next spawn does not overlap this one.
      for await (const _ of manager.output(agent.id, { after: chunk.seq, follow: true, signal: AbortSignal.timeout(30_000) }));
      return elapsed;
    }
  }
  throw new Error(`sandbox bench: ${name} ended without output (${JSON.stringify(manager.status(agent.id))})`);
}

/** Run the spawn benchmark and return its report. */
export async function runSandboxBench(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-sandbox-bench-'));
  // As root, agents in bubblewrap run as uid 65534, which must reach their directories.
  chmodSync(dir, 0o711);
  const boxes = await Promise.all(MODES.map((mode, i) => managerFor(dir, mode, i)));
  try {
    const samples = MODES.map(() => [] as number[]);
    // Interleaved, so that a busy moment of a shared machine falls on every mode alike.
    for (let run = 0; run < WARMUP + RUNS; run++) {
      for (const [i, { manager }] of boxes.entries()) {
        const elapsed = await firstByte(manager, `bench-${run}`);
        if (run >= WARMUP) samples[i]!.push(elapsed);
      }
    }
    const plain = median(samples[0]!);
    const rows = MODES.map((mode, i) => {
      const s = samples[i]!;
      return [mode.label, ms(median(s)), ms(quantile(s, 0.95)), i === 0 ? '—' : `+${ms(median(s) - plain)}`];
    });
    return [
      `Agent spawn → first output byte — /bin/echo through the process manager, ${RUNS} runs per mode after ${WARMUP} warm-up, interleaved, Node ${process.version}`,
      '',
      table(['mode', 'p50', 'p95', 'p50 overhead'], rows),
      '',
      `Target: sandboxed spawn overhead ≤ 10 ms p50 (launcher ${ms(median(samples[1]!) - plain)}, bubblewrap around it ${ms(median(samples[2]!) - plain)}).`,
    ].join('\n');
  } finally {
    for (const { manager, sandbox } of boxes) {
      await manager.closeAll(0);
      await sandbox.close();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

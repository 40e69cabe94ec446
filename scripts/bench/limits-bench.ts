// The cost of agent accounting: one sample of 20 agents (3 processes each) through the real process manager, CPU and wall time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { AgentAccounting } from '../../management-api/src/sandbox/agent-accounting.js';
import { listPids } from '../../management-api/src/sandbox/proc-stat.js';
import { median, ms, quantile, table } from './stats.js';

const AGENTS = 20;
const SAMPLES = 300;

/** Run the accounting benchmark and return its report. */
export async function runLimitsBench(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-limits-bench-'));
  const logger = createLogger({ level: 'silent' });
  // Samples only when the benchmark takes them: an hour between timer ticks.
  const accounting = new AgentAccounting({ logger, ceiling: { memory: '2g', cpu_seconds: 3600, processes: 128 }, intervalMs: 3_600_000 });
  const manager = new ProcessManager({ workspaceDir: dir, parentEnv: { PATH: process.env['PATH'] }, logger, accounting });
  await manager.start();
  try {
    for (let i = 0; i < AGENTS; i++) await manager.spawn({ name: `bench-${i}`, command: '/bin/sh', args: ['-c', 'sleep 600 & sleep 600 & wait'] });
    // Until every agent shows its three processes.
    for (;;) {
      accounting.sample();
      if (manager.list().every((a) => a.usage?.processes === 3)) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const before = process.cpuUsage();
      const started = performance.now();
      accounting.sample();
      wall.push(performance.now() - started);
      const used = process.cpuUsage(before);
      cpu.push((used.user + used.system) / 1000);
    }
    const processes = listPids().length;
    const perSecond = median(cpu) / 1000;
    return [
      `Agent accounting — ${AGENTS} agents × 3 processes, ${processes} processes on the machine, ${SAMPLES} samples, Node ${process.version}`,
      '',
      table(
        ['per sample', 'p50', 'p95', 'max'],
        [
          ['wall (event loop held)', ms(median(wall)), ms(quantile(wall, 0.95)), ms(Math.max(...wall))],
          ['CPU (user + system)', ms(median(cpu)), ms(quantile(cpu, 0.95)), ms(Math.max(...cpu))],
        ],
      ),
      '',
      `At one sample a second: ${(perSecond * 100).toFixed(2)} % of one core.`,
    ].join('\n');
  } finally {
    await manager.closeAll(0);
    rmSync(dir, { recursive: true, force: true });
  }
}

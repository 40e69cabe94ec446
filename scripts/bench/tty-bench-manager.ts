// The process manager the tty benchmarks run agents through, built as local-procmgr builds the box's: the sandbox on (bubblewrap when it works here, the launcher always), accounting and the prompt watch included.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AgentInputRelay } from '../../management-api/src/adapters/orchestrator/agent-input-hooks.js';
import { ProcessManager } from '../../management-api/src/adapters/orchestrator/process-manager.js';
import { createLogger } from '../../management-api/src/observability/logger.js';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { AgentSandbox } from '../../management-api/src/sandbox/agent-sandbox.js';
import { AgentAccounting } from '../../management-api/src/sandbox/limits/accounting.js';

const LIMITS = { memory: '2g', cpu_seconds: 3600, processes: 128, open_files: 1024, file_size: '1g', disk: '10g', entries: 200_000 };

/** A started manager and how its agents are confined. */
export interface BenchManager {
  manager: ProcessManager;
  /** 'bubblewrap + launcher' or 'launcher'. */
  mode: string;
  close(): Promise<void>;
}

/** A temporary directory a root box's agents (own uids) can reach. */
export function benchDir(prefix: string): string {
  const dir = mkdtempSync(path.join(process.env['AGENTBOX_BENCH_DIR'] ?? tmpdir(), prefix));
  chmodSync(dir, 0o711);
  return dir;
}

/** A process manager under `dir`/`name` whose agents are confined as a default box's are (fails when the launcher cannot confine). */
export async function benchManager(dir: string, name: string): Promise<BenchManager> {
  const paths = runtimePaths({ AGENTBOX_ROOT: path.join(dir, name) });
  const logger = createLogger({ level: 'silent' });
  // The manifest's default: bubblewrap where user namespaces work, the launcher alone elsewhere.
  const sandbox = new AgentSandbox({ enabled: true, namespaces: 'auto', limits: LIMITS, egressPort: () => 3128, apiPort: () => 9090, paths });
  // The box's own sampler runs at its own interval: its cost is part of the API's load.
  const accounting = new AgentAccounting({ logger, ceiling: LIMITS });
  const manager = new ProcessManager({
    workspaceDir: paths.workspaceDir,
    parentEnv: { PATH: process.env['PATH'] },
    logger,
    accounting,
    sandbox,
    // No listener: the watch still reads every tty agent's screen once it is quiet, as in a box.
    input: new AgentInputRelay(),
  });
  const capability = await sandbox.start();
  if (!capability.enforceable)
    throw new Error(`tty bench: the launcher cannot confine agents here: ${capability.missing} (build it with node scripts/build/build-launcher.mjs)`);
  await manager.start();
  const mode = sandbox.status().namespaces.active ? 'bubblewrap + launcher' : 'launcher';
  return {
    manager,
    mode,
    async close() {
      await manager.closeAll(0);
      await sandbox.close();
      accounting.close();
    },
  };
}

/** Remove a bench directory. */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

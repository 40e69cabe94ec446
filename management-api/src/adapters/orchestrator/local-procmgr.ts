// orchestrator/local-procmgr: agents as child processes of the API, in the workspace, with an allowlisted environment.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { AdapterContext, SlotHealth } from '../adapter.js';
import { AdapterUnavailableError } from '../../adapter-errors.js';
import { AgentAccounting } from '../../sandbox/limits/accounting.js';
import type { OrchestratorAdapter } from './orchestrator-adapter.js';
import { ProcessManager } from './process-manager.js';

/** This implementation's registry name. */
export const ADAPTER = 'orchestrator/local-procmgr';
export { CONTRACT_VERSION } from './orchestrator-adapter.js';

/** How long agents get to end after SIGTERM when the API closes. */
export const CLOSE_GRACE_MS = 5_000;

/** A local process orchestrator. Pid records go to `<run>/agents/`, so a restart after a crash ends orphaned agents. */
export function create(context: AdapterContext<'orchestrator'>): OrchestratorAdapter {
  // Fail closed: no agent starts without the sandbox the resolver gives (which may be turned off in the manifest).
  const sandbox = context.sandbox;
  if (!sandbox) throw new Error('orchestrator/local-procmgr: the adapter context has no agent sandbox (build it through the resolver)');
  // Budgets from sandbox.limits; the figures go to the API's metrics.
  const accounting = new AgentAccounting({ logger: context.logger, ceiling: sandbox.settings.limits, metrics: sandbox.limitMetrics });
  const manager = new ProcessManager({
    workspaceDir: context.paths.workspaceDir,
    parentEnv: context.env,
    logger: context.logger,
    recordDir: path.join(context.paths.runDir, 'agents'),
    accounting,
    sandbox: sandbox.confinement,
    ...(context.agentCredentials ? { credentials: context.agentCredentials } : {}),
    ...(context.agentAudit ? { audit: context.agentAudit } : {}),
    ...(context.egress ? { egress: context.egress } : {}),
    ...(context.agentInput ? { input: context.agentInput } : {}),
  });
  let started = false;

  const ready = (): ProcessManager => {
    if (!started) throw new AdapterUnavailableError('orchestrator', 'the process manager is not started');
    return manager;
  };

  return {
    async connect() {
      if (started) return;
      // The capability probe: its result is what /health shows and what spawns are refused with.
      await sandbox.confinement.start();
      await manager.start();
      started = true;
    },
    async health(): Promise<SlotHealth> {
      if (!manager.workspace) return { state: 'degraded', reason: 'not-started' };
      try {
        await access(manager.workspace, constants.R_OK | constants.W_OK | constants.X_OK);
        return { state: 'healthy' };
      } catch (err) {
        return { state: 'degraded', reason: `workspace-inaccessible: ${(err as NodeJS.ErrnoException).code ?? 'error'}` };
      }
    },
    async close() {
      await manager.closeAll(CLOSE_GRACE_MS);
      await sandbox.confinement.close();
    },
    spawn: async (request) => ready().spawn(request),
    list: async () => ready().list(),
    status: async (id) => ready().status(id),
    terminate: async (id, graceMs) => ready().terminate(id, graceMs),
    output: async (id, request) => ready().output(id, request),
    terminal: async (id) => ready().terminal(id),
    input: async (id, data) => ready().input(id, data),
    exec: async (id, request) => ready().exec(id, request),
  };
}

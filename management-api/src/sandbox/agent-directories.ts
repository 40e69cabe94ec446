// Tells the accounting where each agent writes (its working directory, its private temporary directory), for its disk budget.
import type { AgentAccounting } from './agent-accounting.js';
import type { AgentSandbox, ConfinedSpawn } from './agent-sandbox.js';

/**
 * The directories whose disk use is the agent's: its working directory, unless it is the shared
 * workspace itself (possible only unconfined: other agents' files are there), and the temporary
 * directory the sandbox made for it (TMPDIR; none when the sandbox is off).
 */
export function agentDirectories(agent: { cwd: string; workspace: string }, confined: Pick<ConfinedSpawn, 'env'>): string[] {
  const dirs = agent.cwd === agent.workspace ? [] : [agent.cwd];
  const tmp = confined.env['TMPDIR'];
  if (tmp) dirs.push(tmp);
  return dirs;
}

/**
 * The sandbox, telling `accounting` each agent's directories as it confines it; everything else
 * is the sandbox's own. Interim seam: once the process manager passes agentDirectories(target,
 * confined) to accounting.follow() itself, this wrapper goes.
 */
export function measuredSandbox(sandbox: AgentSandbox, accounting: AgentAccounting): AgentSandbox {
  const confine: AgentSandbox['confine'] = async (agent) => {
    const confined = await sandbox.confine(agent);
    accounting.directories(agent.id, agentDirectories(agent, confined));
    return {
      ...confined,
      release: async () => {
        accounting.directories(agent.id, undefined);
        await confined.release();
      },
    };
  };
  // Methods run on the sandbox itself, whose private fields a proxy receiver would not have.
  return new Proxy(sandbox, {
    get(target, key) {
      if (key === 'confine') return confine;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

// Tells the accounting where each agent writes (its working directory, its private temporary directory), for its disk budget.
import type { ConfinedSpawn } from './agent-sandbox.js';

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

// How an agent's record reads in a cell: its command line, whether it ended, how it exited.
import type { Agent } from '../types.js';

const ENDED = new Set(['exited', 'failed', 'terminated', 'crash-loop']);

/** The agent is over (no process left to terminate). */
export function ended(agent: Agent): boolean {
  return ENDED.has(agent.state);
}

/** The command and its arguments as one line; an argument with spaces, quotes or nothing in it is shown as a JSON string. */
export function commandLine(agent: Agent): string {
  const quote = (a: string) => (a === '' || /[\s"'\\]/.test(a) ? JSON.stringify(a) : a);
  return [agent.command, ...(agent.args ?? [])].map(quote).join(' ');
}

/** "0", "1", "SIGKILL" or a dash while it runs. */
export function exitText(agent: Agent): string {
  if (agent.exitCode !== undefined && agent.exitCode !== null) return String(agent.exitCode);
  if (agent.signal) return agent.signal;
  return '—';
}

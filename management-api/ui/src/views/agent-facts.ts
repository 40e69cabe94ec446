// How an agent's record reads in a cell: its command line, whether it ended, how it exited, why the box ended it, how long it ran.
import { duration, elapsed } from '../format.js';
import type { Agent, AgentCheckpoints } from '../types.js';

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

/** The exit in words for the details: "exit code 3", "signal SIGKILL", or a dash while it runs. */
export function exitWords(agent: Agent): string {
  const text = exitText(agent);
  if (text === '—') return text;
  return agent.signal && (agent.exitCode === undefined || agent.exitCode === null) ? `signal ${text}` : `exit code ${text}`;
}

/** What each reason of the box means, in the words of the manifest key that set the bound. */
const REASONS: Readonly<Record<string, string>> = {
  timeout: 'timeout_sec passed',
  idle: 'idle_timeout_sec passed without output or input',
  'limit:memory': 'over its memory budget',
  'limit:cpu': 'over its CPU seconds',
  'limit:processes': 'over its process budget',
  'limit:disk': 'over its disk budget',
  'limit:entries': 'held more entries than limits.entries',
  'limit:inotify': 'held more than 16 inotify instances',
};

/** "timeout: timeout_sec passed", "limit:cpu: over its CPU seconds", the bare reason when unknown, or a dash when the box did not end it. */
export function reasonText(agent: Agent): string {
  if (!agent.reason) return '—';
  const meaning = REASONS[agent.reason];
  return meaning ? `${agent.reason}: ${meaning}` : agent.reason;
}

/** How long it ran: the record's own `durationMs` once ended; while it runs, from its start to `now`. */
export function durationText(agent: Agent, now: number): string {
  if (agent.durationMs !== undefined) return duration(agent.durationMs);
  return elapsed(agent.startedAt, agent.endedAt, now);
}

/** "every 10 min, the 5 newest kept: 3 so far", or "none" for an agent without (or no longer followed by) checkpoints. */
export function checkpointsText(plan: AgentCheckpoints | undefined): string {
  if (!plan) return 'none';
  return `every ${duration(plan.everySec * 1000)}, the ${plan.keep} newest kept: ${plan.made.length} so far (label "checkpoint" below)`;
}

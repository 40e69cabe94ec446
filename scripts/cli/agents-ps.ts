// `agentbox ps [-a] [--json]`: the agents of a running box as a table (running ones; -a: all the box keeps).
import { parseArgs } from 'node:util';
import { LIVE_STATES, listAgents, type AgentRecord } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox ps [-a] [--url URL] [--manifest FILE] [--root DIR] [--json]

List the running agents: id, name, profile (- for an ad-hoc spawn), command, state, pid, start,
duration (running time while it runs), and how each ended: exit code or signal, and the box's
reason (timeout, idle, limit:…).
Commands started with \`agentbox exec\` show the agent they run in.

Options:
  -a, --all        also the agents that ended (the box keeps the last 200)
${targetHelp} (an array of the records /v1/agents returns)
  -h, --help       show this help

Exit codes: 0 listed, 1 unreachable or refused.`;

/** A duration as docker shows one: 45s, 3m12s, 2h05m. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/** How an agent ended: its exit code, the signal, and the box's reason. */
export function endOf(a: AgentRecord): string {
  if (LIVE_STATES.has(a.state)) return '';
  return [a.exitCode !== undefined ? `code ${a.exitCode}` : '', a.signal ?? '', a.reason ?? ''].filter(Boolean).join(' ');
}

/** The table, a header and one line per agent. */
export function formatTable(agents: readonly AgentRecord[], now: number): string {
  const rows = agents.map((a) => {
    const command = [a.command, ...a.args].join(' ');
    return [
      a.id,
      a.execOf ? `${a.name} (exec in ${a.execOf})` : a.name,
      // A dash, not an empty cell: the columns stay split on blanks (awk, cut).
      a.profile ?? '-',
      command.length > 40 ? `${command.slice(0, 39)}…` : command,
      `${a.state}${a.tty ? ' tty' : ''}`,
      a.pid === undefined ? '' : String(a.pid),
      a.startedAt.replace(/\.\d+Z$/, 'Z'),
      formatDuration(a.durationMs ?? (a.endedAt ? Date.parse(a.endedAt) : now) - Date.parse(a.startedAt)),
      endOf(a),
    ];
  });
  const header = ['ID', 'NAME', 'PROFILE', 'COMMAND', 'STATE', 'PID', 'STARTED', 'DURATION', 'ENDED'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, all: { type: 'boolean', short: 'a' } } });
  if (positionals.length) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const target = await resolveTarget(values);
  const agents = (await listAgents(target)).filter((a) => values.all || LIVE_STATES.has(a.state));
  if (values.json) process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
  else process.stdout.write(`${formatTable(agents, Date.now())}\n`);
  return 0;
}

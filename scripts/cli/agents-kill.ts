// `agentbox kill [--signal TERM|KILL] [--grace SECONDS] AGENT…`: end agents (SIGTERM to the process group, SIGKILL after the grace).
import { parseArgs } from 'node:util';
import { call, refusal, resolveAgent, type AgentRecord } from './agent-api.js';
import { endOf } from './agents-ps.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';

export const usage = `Usage: agentbox kill [--signal TERM|KILL] [--grace SECONDS] AGENT…

End agents (each AGENT: an id, a unique id prefix, or a name) and print how each ended.
The box sends SIGTERM to the agent's process group, then SIGKILL after the grace period;
a command exec'd into an agent ends with it.

Options:
  -s, --signal SIG  TERM (default: SIGTERM, SIGKILL after the grace) or KILL (SIGKILL at once);
                    the box sends no other signal to an agent
  --grace SECONDS   how long SIGTERM has before SIGKILL (default 5, at most 600)
${targetHelp} (an array of the final records)
  -h, --help        show this help

Exit codes: 0 every agent ended, 1 refused or unreachable, 2 bad usage.`;

/** The grace in milliseconds for `--signal` and `--grace`. */
export function graceOf(signal: string | undefined, grace: string | undefined): number {
  const sig = (signal ?? 'TERM').toUpperCase().replace(/^SIG/, '');
  if (sig === 'KILL' || sig === '9') {
    if (grace !== undefined) throw new UsageError('--grace is for SIGTERM; --signal KILL sends SIGKILL at once');
    return 0;
  }
  if (sig !== 'TERM' && sig !== '15')
    throw new UsageError(`--signal ${signal}: the box ends agents with TERM (then KILL after the grace) or KILL; it sends no other signal`);
  if (grace === undefined) return 5_000;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(grace) || Number(grace) > 600) throw new UsageError(`--grace ${JSON.stringify(grace)}: give seconds from 0 to 600`);
  return Math.round(Number(grace) * 1000);
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { ...targetOptions, signal: { type: 'string', short: 's' }, grace: { type: 'string' } },
  });
  if (!positionals.length) throw new UsageError('name the agents to end');
  const graceMs = graceOf(values.signal, values.grace);
  const target = await resolveTarget(values);
  const agents = [];
  for (const ref of positionals) agents.push(await resolveAgent(target, ref));
  const ended: AgentRecord[] = [];
  for (const agent of agents) {
    const res = await call(target, 'DELETE', `/v1/agents/${agent.id}?graceMs=${graceMs}`);
    if (res.status !== 200) throw refusal(`ending ${agent.id}`, res);
    const record = res.body['agent'] as AgentRecord;
    ended.push(record);
    if (!values.json) process.stdout.write(`${record.id}  ${record.state}${endOf(record) ? `  ${endOf(record)}` : ''}\n`);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(ended, null, 2)}\n`);
  return 0;
}

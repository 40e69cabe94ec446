// `agentbox snapshot ls [--agent AGENT] [--json]`: the snapshots a running box holds, oldest first.
import { parseArgs } from 'node:util';
import { call, refusal, resolveAgent } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { formatSnapshots, type SnapshotRecord } from './snapshot-format.js';

export const usage = `Usage: agentbox snapshot ls [--agent AGENT] [--json]

List the box's workspace snapshots, oldest first: id, agent, when, files, size (the files' bytes)
and what each added to the store when it was made (the rest it shares).

Options:
  --agent AGENT    only the snapshots of one agent (an id, a unique id prefix, or a name)
${targetHelp} (an array of the records /v1/snapshots returns)
  -h, --help       show this help

Exit codes: 0 listed, 1 refused or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, agent: { type: 'string' } } });
  if (positionals.length) throw new UsageError(`snapshot ls takes no operand ("${positionals[0]}")`);
  const target = await resolveTarget(values);
  const agent = values.agent !== undefined ? await resolveAgent(target, values.agent) : undefined;
  const res = await call(target, 'GET', `/v1/snapshots${agent ? `?agent=${encodeURIComponent(agent.id)}` : ''}`);
  if (res.status !== 200) throw refusal('listing snapshots', res);
  const list = res.body['snapshots'] as SnapshotRecord[];
  process.stdout.write(values.json ? `${JSON.stringify(list, null, 2)}\n` : `${formatSnapshots(list)}\n`);
  return 0;
}

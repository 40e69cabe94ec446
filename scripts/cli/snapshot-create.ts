// `agentbox snapshot create [--label TEXT] AGENT`: snapshot an agent's working directory on a running box.
import { parseArgs } from 'node:util';
import { call, refusal, resolveAgent } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { madeLine, type SnapshotRecord } from './snapshot-format.js';
import { whileWaiting } from './wait-line.js';

export const usage = `Usage: agentbox snapshot create [--label TEXT] AGENT

Snapshot the working directory of AGENT (an id, a unique id prefix, or a name), running or ended.
Files are stored by content, once across snapshots and agents; a file unchanged since the agent's
previous snapshot is not read again. Each file is as of its own read: while the agent writes, the
files are not all of one instant (docs/user/files-and-snapshots.md).

Options:
  --label TEXT     a note shown by agentbox snapshot ls
${targetHelp} (the snapshot's record)
  -h, --help       show this help

Exit codes: 0 made, 1 refused or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, label: { type: 'string' } } });
  if (positionals.length !== 1) throw new UsageError('name one agent to snapshot');
  const target = await resolveTarget(values);
  const agent = await resolveAgent(target, positionals[0]);
  const res = await whileWaiting(
    `snapshotting ${agent.name}`,
    call(target, 'POST', `/v1/agents/${agent.id}/snapshots`, values.label !== undefined ? { label: values.label } : {}),
  );
  if (res.status !== 201) throw refusal(`snapshotting ${agent.id}`, res);
  const snapshot = res.body['snapshot'] as SnapshotRecord;
  process.stdout.write(values.json ? `${JSON.stringify(snapshot, null, 2)}\n` : `${madeLine(snapshot)}\n`);
  return 0;
}

// `agentbox snapshot show SNAPSHOT [--json]`: one snapshot, with what it shares with the others, what deleting it frees and what it is charged.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { formatSnapshot, type SnapshotRecord } from './snapshot-format.js';
import { snapshotId } from './url-segments.js';

export const usage = `Usage: agentbox snapshot show SNAPSHOT [--json]

Show one snapshot (its id, snp_…): whose working directory, when, what it holds, and, as of now,
the bytes it shares with other snapshots, the bytes only it holds (what deleting it frees) and the
bytes it is charged (the chunks it is the oldest snapshot to refer to: an agent's own snapshots
count them against its disk budget).

Options:
${targetHelp} (the record GET /v1/snapshots/{sid} returns)
  -h, --help       show this help

Exit codes: 0 shown, 1 refused (an unknown id) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: targetOptions });
  if (positionals.length !== 1) throw new UsageError('name one snapshot to show (agentbox snapshot ls lists them)');
  const sid = snapshotId(positionals[0]!);
  const target = await resolveTarget(values);
  const res = await call(target, 'GET', `/v1/snapshots/${sid}`);
  if (res.status !== 200) throw refusal(`showing ${sid}`, res);
  const snapshot = res.body['snapshot'] as SnapshotRecord;
  process.stdout.write(values.json ? `${JSON.stringify(snapshot, null, 2)}\n` : `${formatSnapshot(snapshot)}\n`);
  return 0;
}

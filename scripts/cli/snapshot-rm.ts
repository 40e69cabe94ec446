// `agentbox snapshot rm SNAPSHOT…`: delete snapshots; the store frees what no other snapshot refers to.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { formatBytes } from './snapshot-format.js';
import { snapshotId } from './url-segments.js';

export const usage = `Usage: agentbox snapshot rm SNAPSHOT…

Delete snapshots (their ids, snp_…). The chunks no remaining snapshot refers to are removed;
those another snapshot shares stay.

Options:
${targetHelp} (an array of what each delete answered)
  -h, --help       show this help

Exit codes: 0 deleted, 1 refused (an unknown id) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: targetOptions });
  if (!positionals.length) throw new UsageError('name the snapshots to delete');
  // Every id checked before any is deleted.
  for (const sid of positionals) snapshotId(sid);
  const target = await resolveTarget(values);
  const answers = [];
  for (const sid of positionals) {
    const res = await call(target, 'DELETE', `/v1/snapshots/${snapshotId(sid)}`);
    if (res.status !== 200) throw refusal(`deleting ${sid}`, res);
    answers.push(res.body);
    if (!values.json) process.stdout.write(`${sid}  deleted, ${formatBytes(Number(res.body['freedBytes'] ?? 0))} freed\n`);
  }
  if (values.json) process.stdout.write(`${JSON.stringify(answers, null, 2)}\n`);
  return 0;
}

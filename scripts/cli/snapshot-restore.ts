// `agentbox snapshot restore AGENT SNAPSHOT`: replace an ended agent's working directory with a snapshot.
import { parseArgs } from 'node:util';
import { call, LIVE_STATES, refusal, resolveAgent } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError, UserError } from './cli-errors.js';
import { formatBytes } from './snapshot-format.js';
import { snapshotId } from './url-segments.js';
import { SNAPSHOT_ID } from '../../management-api/src/grammar/snapshot-id.js';
import { whileWaiting } from './wait-line.js';

export const usage = `Usage: agentbox snapshot restore AGENT SNAPSHOT

Replace the working directory of AGENT (an id, a unique id prefix, or a name) with SNAPSHOT, in
place. The agent must have ended (agentbox kill it first); to carry on from a snapshot while
others run, start a fork instead: agentbox run --from-snapshot SNAPSHOT …
Contents, permission bits, mtimes and links come back; setuid bits, devices and FIFOs never do.

Options:
${targetHelp} (what the restore answered)
  -h, --help       show this help

Exit codes: 0 restored, 1 refused (the agent runs, an unknown id) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: targetOptions });
  if (positionals.length !== 2) throw new UsageError('give the agent, then the snapshot');
  // The two the other way round are told as that below, once the agent is not found.
  if (!SNAPSHOT_ID.test(positionals[0]!)) snapshotId(positionals[1]!);
  const target = await resolveTarget(values);
  const agent = await resolveAgent(target, positionals[0]).catch((err: unknown) => {
    // The likeliest slip: the two the other way round.
    if (err instanceof UserError && positionals[0]!.startsWith('snp_'))
      throw new UserError(
        `${err.message}. The agent comes first, then the snapshot: agentbox snapshot restore ${positionals[1]} ${positionals[0]}`,
        err.exitCode,
      );
    // An agent that is gone (a restored box lists none) cannot be restored into; a fork starts one on the snapshot.
    if (err instanceof UserError && err.exitCode === 1)
      throw new UserError(`${err.message}. To start a new agent on the snapshot instead: agentbox run --from-snapshot ${positionals[1]} -- COMMAND`, 1);
    throw err;
  });
  const res = await whileWaiting(
    `restoring ${positionals[1]} into ${agent.name}`,
    call(target, 'POST', `/v1/agents/${agent.id}/restore`, { snapshot: positionals[1] }),
  );
  if (res.status === 409 && LIVE_STATES.has(agent.state) && /has ended/.test(String(res.body['message'])))
    // The box's own words name its API; from here, the command that ends the agent.
    throw new UserError(
      `restoring ${positionals[1]} into ${agent.id}: 409: the agent is ${agent.state}, and a workspace is restored in place only once its agent has ended: \`agentbox kill ${agent.id}\` first, or fork the snapshot into a new agent (\`agentbox run --from-snapshot ${positionals[1]} -- COMMAND\`)`,
      1,
    );
  if (res.status !== 200) throw refusal(`restoring ${positionals[1]} into ${agent.id}`, res);
  process.stdout.write(
    values.json
      ? `${JSON.stringify(res.body, null, 2)}\n`
      : `${agent.id}  restored from ${positionals[1]}: ${res.body['files']} files, ${formatBytes(Number(res.body['bytes'] ?? 0))}\n`,
  );
  return 0;
}

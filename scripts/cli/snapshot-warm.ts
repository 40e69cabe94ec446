// `agentbox snapshot warm SNAPSHOT N`: keep N copies of a snapshot built ahead, so that its forks start without copying; --wait until they are.
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError, UserError } from './cli-errors.js';
import { snapshotId } from './url-segments.js';

export const usage = `Usage: agentbox snapshot warm SNAPSHOT N [--wait]

Keep N whole copies of a snapshot built ahead (0 to 32; 0 removes them). A fork of it
(agentbox run --from-snapshot) then takes a copy by renaming it into place, instead of copying
every byte while it waits, and the box builds another to keep N ready. The copies are built one at
a time in the background; each takes what a fork of the snapshot takes on the workspace's disk.
On btrfs, where forks are clones already, they are not needed.

Options:
  --wait           wait until the N copies are ready, saying how many are on stderr
${targetHelp} (the snapshot's warm copies: wanted, ready, building, error)
  -h, --help       show this help

Exit codes: 0 asked for (with --wait: ready), 1 refused, unreachable, or a copy that could not be
built (the error says why), 2 bad usage.`;

/** How often --wait asks: a copy of a small tree takes a fraction of a second, of a gigabyte seconds. */
const POLL_MS = 250;

interface Warm {
  wanted: number;
  ready: number;
  building: boolean;
  error?: string;
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, wait: { type: 'boolean' } } });
  const [sid, count, ...extra] = positionals;
  if (sid === undefined || count === undefined) throw new UsageError('name the snapshot and how many copies to keep ready: agentbox snapshot warm snp_… 10');
  if (extra.length) throw new UsageError(`unexpected ${JSON.stringify(extra[0])}: one snapshot and one count`);
  const forks = Number(count);
  if (!/^\d+$/.test(count) || forks > 32) throw new UsageError(`${JSON.stringify(count)} is not a count of copies from 0 to 32`);
  const target = await resolveTarget(values);
  const res = await call(target, 'PUT', `/v1/snapshots/${snapshotId(sid)}/warm`, { forks });
  if (res.status !== 200) throw refusal(`asking for warm forks of ${sid}`, res);
  let warm = res.body['warm'] as Warm;
  if (values.wait) warm = await ready(target, sid, warm);
  if (values.json) process.stdout.write(`${JSON.stringify({ snapshot: sid, warm }, null, 2)}\n`);
  else process.stdout.write(`${sid}  ${warm.ready} of ${warm.wanted} warm forks ready${warm.building ? ', one building' : ''}\n`);
  return 0;
}

/** Poll the snapshot until its copies are ready, saying each change on stderr; a build that failed ends the wait. */
async function ready(target: Awaited<ReturnType<typeof resolveTarget>>, sid: string, first: Warm): Promise<Warm> {
  let warm = first;
  let said = -1;
  for (;;) {
    if (warm.error !== undefined) throw new UserError(`a warm fork of ${sid} could not be built: ${warm.error}`);
    if (warm.ready !== said) {
      process.stderr.write(`${warm.ready} of ${warm.wanted} ready\n`);
      said = warm.ready;
    }
    if (warm.ready >= warm.wanted) return warm;
    await sleep(POLL_MS);
    const res = await call(target, 'GET', `/v1/snapshots/${snapshotId(sid)}`);
    if (res.status !== 200) throw refusal(`reading snapshot ${sid}`, res);
    const snapshot = res.body['snapshot'] as { warm?: Warm };
    // No pool any more: another caller asked for none, or deleted copies with the snapshot.
    warm = snapshot.warm ?? { wanted: 0, ready: 0, building: false };
  }
}

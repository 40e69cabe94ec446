// `agentbox snapshot files SNAPSHOT [DIR] [--json]`: a directory of a snapshot, listed from the store as `ls -l` would, without forking it.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { snapshotPathUrl } from './snapshot-cat.js';
import { formatListing, type ListingRecord } from './snapshot-inspect-format.js';

export const usage = `Usage: agentbox snapshot files SNAPSHOT [DIR] [--json]

List directory DIR of snapshot SNAPSHOT (default: the working directory it was taken of), read from the
store: no agent is forked. A line an entry: mode, size, modification time, name (a link with its
target: links are listed, never followed). Print a file with agentbox snapshot cat.

Options:
${targetHelp} (the record GET /v1/snapshots/{sid}/files/{DIR}?list returns)
  -h, --help       show this help

Exit codes: 0 listed, 1 refused (an unknown snapshot, no such directory) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: targetOptions });
  if (positionals.length < 1 || positionals.length > 2)
    throw new UsageError('give a snapshot and, if not its top, a directory: agentbox snapshot files SNAPSHOT [DIR]');
  const [sid, dir = ''] = positionals as [string, string?];
  const pathname = snapshotPathUrl(sid, dir, '?list');
  const target = await resolveTarget(values);
  const res = await call(target, 'GET', pathname);
  if (res.status !== 200) throw refusal(`listing ${dir || '.'} in ${sid}`, res);
  const listing = res.body as unknown as ListingRecord;
  process.stdout.write(values.json ? `${JSON.stringify(listing, null, 2)}\n` : `${formatListing(listing)}\n`);
  return 0;
}

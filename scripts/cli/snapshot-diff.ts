// `agentbox snapshot diff FROM TO [--limit N] [--json]`: what changed from one snapshot to another, a path a line, as `git diff --name-status` prints it.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { formatDiff, type DiffRecord } from './snapshot-inspect-format.js';

export const usage = `Usage: agentbox snapshot diff FROM TO [--limit N] [--json]

What changed from snapshot FROM to snapshot TO (ids, snp_…; of one agent or two), read from their
records alone: no file is read and nothing is built. A line a path, in path order:
  A  added      D  deleted      M  modified (what: content, mode, target of a link, type)
A directory ends with "/". A modification time alone is no change. The last line counts every
change, listed or not. To see what an agent changed since a snapshot, snapshot it now and diff the two
(a second snapshot reads only the files that changed).

Options:
  --limit N        list at most N changes (1-10000, default 10000); the counts cover all
${targetHelp} (the record GET /v1/snapshots/{TO}/diff?from=FROM returns)
  -h, --help       show this help

Exit codes: 0 shown, 1 refused (an unknown id) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, limit: { type: 'string' } } });
  if (positionals.length !== 2) throw new UsageError('give two snapshots, the earlier first: agentbox snapshot diff FROM TO (agentbox snapshot ls lists them)');
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 10_000))
    throw new UsageError(`--limit takes a whole number from 1 to 10000, not "${values.limit}"`);
  const [from, to] = positionals as [string, string];
  const target = await resolveTarget(values);
  const query = `from=${encodeURIComponent(from)}${limit !== undefined ? `&limit=${limit}` : ''}`;
  const res = await call(target, 'GET', `/v1/snapshots/${encodeURIComponent(to)}/diff?${query}`);
  if (res.status !== 200) throw refusal(`comparing ${from} with ${to}`, res);
  const diff = res.body as unknown as DiffRecord;
  process.stdout.write(values.json ? `${JSON.stringify(diff, null, 2)}\n` : `${formatDiff(diff)}\n`);
  return 0;
}

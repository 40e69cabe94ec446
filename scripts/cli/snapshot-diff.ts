// `agentbox snapshot diff FROM TO [--limit N] [--json]`: what changed from one snapshot to another, a path a line, as `git diff --name-status` prints it.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { type BoxTarget, resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { MAX_DIFF_CHANGES } from '../../management-api/src/snapshots/snapshot-diff.js';
import { formatDiff, type DiffRecord } from './snapshot-inspect-format.js';
import { snapshotId } from './url-segments.js';

export const usage = `Usage: agentbox snapshot diff FROM TO [--limit N] [--json]

What changed from snapshot FROM to snapshot TO (ids, snp_…; of one agent or two), read from their
records alone: no file is read and nothing is built. A line a path, in path order:
  A  added      D  deleted      M  modified (what: content, mode, target of a link, type)
A directory ends with "/". A modification time alone is no change. The last line counts every
change, listed or not. To see what an agent changed since a snapshot, snapshot it now and diff the two
(a second snapshot reads only the files that changed).

Options:
  --limit N        list at most N changes (default: every one, fetched 10,000 at a time); the counts cover all
${targetHelp} (the record GET /v1/snapshots/{TO}/diff?from=FROM returns)
  -h, --help       show this help

Exit codes: 0 shown, 1 refused (an unknown id) or unreachable, 2 bad usage.`;

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, limit: { type: 'string' } } });
  if (positionals.length !== 2) throw new UsageError('give two snapshots, the earlier first: agentbox snapshot diff FROM TO (agentbox snapshot ls lists them)');
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) throw new UsageError(`--limit takes a whole number from 1, not "${values.limit}"`);
  const [from, to] = (positionals as [string, string]).map(snapshotId) as [string, string];
  const target = await resolveTarget(values);
  const diff = await fetchDiff(target, from, to, limit ?? Number.POSITIVE_INFINITY);
  process.stdout.write(values.json ? `${JSON.stringify(diff, null, 2)}\n` : `${formatDiff(diff)}\n`);
  return 0;
}

/** The diff's changes up to `limit`, page after page (each names the next with its cursor): one record, as one answer would be. */
async function fetchDiff(target: BoxTarget, from: string, to: string, limit: number): Promise<DiffRecord> {
  let whole: DiffRecord | undefined;
  let cursor: string | undefined;
  do {
    const left = limit - (whole?.changes.length ?? 0);
    const query = `from=${encodeURIComponent(from)}&limit=${Math.min(MAX_DIFF_CHANGES, left)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await call(target, 'GET', `/v1/snapshots/${to}/diff?${query}`);
    if (res.status !== 200) throw refusal(`comparing ${from} with ${to}`, res);
    const page = res.body as unknown as DiffRecord;
    if (whole) whole.changes.push(...page.changes);
    whole = { ...(whole ?? page), truncated: page.truncated, nextCursor: page.nextCursor };
    cursor = page.nextCursor;
  } while (cursor && whole.changes.length < limit);
  if (!whole.nextCursor) delete whole.nextCursor;
  return whole;
}

// `agentbox snapshot prune --keep N | --older-than AGE`: delete the snapshots a retention rule no longer keeps, per agent name, labelled ones spared unless asked.
import { parseArgs } from 'node:util';
import { call, refusal, resolveAgent } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { formatBytes, type SnapshotRecord } from './snapshot-format.js';

export const usage = `Usage: agentbox snapshot prune (--keep N | --older-than AGE)… [--agent AGENT] [--labelled] [--dry-run] [--json]

Delete the snapshots a retention rule no longer keeps, each agent name's series apart (an agent
started again under the same name continues its series). Chunks no remaining snapshot refers to
are freed, as \`snapshot rm\` frees them. Snapshots with a label are kept unless --labelled is given.

Options:
  --keep N         keep each agent name's N newest snapshots (0: none)
  --older-than AGE only delete snapshots older than AGE: a number and a unit, m, h, d or w (30m, 12h,
                   7d, 2w). With --keep, a snapshot goes when both say so: past the N newest and
                   older than AGE
  --agent AGENT    only the snapshots of one agent's name (an id, a unique id prefix, or a name)
  --labelled       delete labelled snapshots too (or --labeled)
  --dry-run        print what would be deleted and delete nothing
${targetHelp} ({deleted: [ids], kept: N, freedBytes, dryRun})
  -h, --help       show this help

Exit codes: 0 done (nothing to delete included), 1 refused or unreachable (those deleted before
stay deleted), 2 bad usage.`;

const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `7d` → milliseconds; a usage error naming the forms otherwise. */
export function ageOf(value: string): number {
  const m = /^([1-9][0-9]{0,5})([mhdw])$/.exec(value);
  if (!m) throw new UsageError(`--older-than ${JSON.stringify(value)}: give a number and a unit, m, h, d or w (30m, 12h, 7d, 2w)`);
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** What a rule asks: keep the newest `keep` of each name, delete only what is older than `olderThanMs`, labelled ones spared unless `labelled`. */
export interface Retention {
  keep?: number;
  olderThanMs?: number;
  labelled: boolean;
}

/** The snapshots `rule` deletes out of `list`, oldest first; `now` in ms since the epoch. */
export function prunable(list: readonly SnapshotRecord[], rule: Retention, now: number): SnapshotRecord[] {
  const byName = new Map<string, SnapshotRecord[]>();
  for (const s of list) byName.set(s.agent.name, [...(byName.get(s.agent.name) ?? []), s]);
  const doomed: SnapshotRecord[] = [];
  for (const series of byName.values()) {
    // Newest first: ties in createdAt are broken by id, so two runs agree.
    const newest = [...series].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    newest.forEach((s, i) => {
      if (rule.keep !== undefined && i < rule.keep) return;
      if (rule.olderThanMs !== undefined && now - Date.parse(s.createdAt) <= rule.olderThanMs) return;
      if (s.label && !rule.labelled) return;
      doomed.push(s);
    });
  }
  return doomed.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      ...targetOptions,
      keep: { type: 'string' },
      'older-than': { type: 'string' },
      agent: { type: 'string' },
      labelled: { type: 'boolean' },
      labeled: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
    },
  });
  if (positionals.length) throw new UsageError(`snapshot prune takes no operand ("${positionals[0]}"); to delete given snapshots: agentbox snapshot rm ID…`);
  if (values.keep === undefined && values['older-than'] === undefined)
    throw new UsageError('say what to keep: --keep N (the newest of each agent name), --older-than AGE, or both');
  if (values.keep !== undefined && !/^(0|[1-9][0-9]{0,5})$/.test(values.keep))
    throw new UsageError(`--keep ${JSON.stringify(values.keep)}: give a whole number`);
  const rule: Retention = {
    ...(values.keep !== undefined ? { keep: Number(values.keep) } : {}),
    ...(values['older-than'] !== undefined ? { olderThanMs: ageOf(values['older-than']) } : {}),
    labelled: values.labelled === true || values.labeled === true,
  };
  const dryRun = values['dry-run'] === true;
  const target = await resolveTarget(values);
  const agent = values.agent !== undefined ? await resolveAgent(target, values.agent) : undefined;
  const res = await call(target, 'GET', '/v1/snapshots');
  if (res.status !== 200) throw refusal('listing snapshots', res);
  const all = res.body['snapshots'] as SnapshotRecord[];
  const list = agent ? all.filter((s) => s.agent.name === agent.name) : all;
  const doomed = prunable(list, rule, Date.now());
  const deleted: string[] = [];
  let freedBytes = 0;
  for (const s of doomed) {
    const line = `${s.id}  ${s.agent.name}  ${s.createdAt}${s.label ? `  "${s.label}"` : ''}`;
    if (dryRun) {
      if (!values.json) process.stdout.write(`${line}  would be deleted\n`);
      deleted.push(s.id);
      continue;
    }
    const answer = await call(target, 'DELETE', `/v1/snapshots/${s.id}`);
    // Gone meanwhile (another prune, a delete by hand): nothing left to do for it.
    if (answer.status === 404) continue;
    if (answer.status !== 200) throw refusal(`deleting ${s.id}`, answer);
    deleted.push(s.id);
    const freed = Number(answer.body['freedBytes'] ?? 0);
    freedBytes += freed;
    if (!values.json) process.stdout.write(`${line}  deleted, ${formatBytes(freed)} freed\n`);
  }
  // What the rule keeps: one a delete found gone already (another prune, a delete by hand) is neither deleted here nor kept.
  const kept = list.length - doomed.length;
  if (values.json) process.stdout.write(`${JSON.stringify({ deleted, kept, freedBytes, dryRun }, null, 2)}\n`);
  else
    process.stdout.write(
      dryRun
        ? `${deleted.length} would be deleted, ${kept} kept (--dry-run: nothing deleted)\n`
        : `${deleted.length} deleted, ${formatBytes(freedBytes)} freed, ${kept} kept\n`,
    );
  return 0;
}

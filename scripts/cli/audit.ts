// `agentbox audit`: the decisions recorded in a box's event log (agent spawns, terminations and
// exits, egress policy changes, policy decisions), and which of its checkpoints a witness cosigned.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { auditReport, type AuditReport } from './audit-report.js';
import { UsageError, UserError } from './cli-errors.js';
import { timeOrAge } from './time-or-age.js';

export const usage = `Usage: agentbox audit [--root DIR] [--since TIME] [--agent ID] [--json]

List the decisions in the box's event log (adapter events/local-jsonl): agent.spawn,
agent.terminate, agent.exit, sandbox.egress.policy, every policy.* event and approval.decided,
with who asked (or decided) and the outcome; then the checkpoints the box signed and which of them a witness (the mesh host)
cosigned. A decision is witnessed once a cosigned checkpoint covers it and the log still hashes
to that checkpoint's root (checked here, from the log itself).

Options:
  --root DIR     the box's root (default: $AGENTBOX_ROOT, else ./.agentbox)
  --since TIME   only decisions at or after TIME: an ISO-8601 time, or an age such as 30m, 12h, 7d
  --agent ID     only decisions about this agent (its id or name)
  --json         print {log, entries, decisions, checkpoints, strayCosignatures}
  -h, --help     show this help

A cosignature of a checkpoint the box's own history does not hold is listed as stray: the history
was rewritten or lost since the witness saw it. To check a log against a cosigned checkpoint with a
witness key obtained elsewhere, use agentbox events verify --against … --witness-key ….

Exit codes: 0 listed, 2 bad usage or the log cannot be read.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: { type: 'string' }, since: { type: 'string' }, agent: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (positionals.length) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const dir = path.join(runtimePaths({ AGENTBOX_ROOT: path.resolve(values.root ?? process.env['AGENTBOX_ROOT'] ?? '.agentbox') }).stateDir, 'events');
  await stat(dir).catch((err: NodeJS.ErrnoException) => {
    throw new UserError(`cannot read the event log ${dir}: ${err.code === 'ENOENT' ? 'no such directory; pass --root DIR (the box root)' : err.message}`);
  });
  let report: AuditReport;
  try {
    report = await auditReport(dir, {
      ...(values.since !== undefined ? { since: timeOrAge('--since', values.since) } : {}),
      ...(values.agent !== undefined ? { agent: values.agent } : {}),
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UserError(`cannot read the event log ${dir}: ${(err as Error).message}`);
  }
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return 0;
  }
  process.stdout.write(print(report));
  return 0;
}

function print(r: AuditReport): string {
  const out: string[] = [`${r.log}: ${r.entries} entries, ${r.decisions.length} decision${r.decisions.length === 1 ? '' : 's'}`];
  for (const d of r.decisions) {
    const by = d.data['by'] as { kind?: string; pubkey?: string; agent?: string; reason?: string } | undefined;
    // An approval's decider: the operator key of a signed decision, else the caller that made it.
    const approver = typeof d.data['approver'] === 'string' ? ` by ${d.data['approver'].slice(0, 12)}…${d.data['signed'] === true ? ' (signed)' : ''}` : '';
    const who =
      approver || !by
        ? approver
        : ` by ${by.kind ?? '?'}${by.pubkey ? ` ${by.pubkey.slice(0, 12)}…` : by.agent ? ` ${by.agent}` : by.reason ? ` (${by.reason})` : ''}`;
    const about = d.agent ? ` agent ${d.agent}${typeof d.data['name'] === 'string' ? ` (${d.data['name']})` : ''}` : '';
    const outcome = typeof d.data['outcome'] === 'string' ? ` → ${d.data['outcome']}` : typeof d.data['state'] === 'string' ? ` → ${d.data['state']}` : '';
    const witnessed = d.witnessedAt
      ? `witnessed at size ${d.witnessedAt.size} by ${d.witnessedAt.witnesses.map((w) => w.witness).join(', ')}`
      : 'not witnessed yet';
    out.push(`  seq ${d.seq}  ${d.time}  ${d.kind}${about}${who}${outcome}  [${witnessed}]`);
  }
  const witnessed = r.checkpoints.filter((c) => c.witnesses.length).length;
  out.push(`checkpoints: ${r.checkpoints.length} signed, ${witnessed} witnessed`);
  for (const c of r.checkpoints) {
    const log = c.logMatches === null ? 'the log is shorter now' : c.logMatches ? 'the log matches' : 'THE LOG NO LONGER MATCHES';
    const marks = c.witnesses.length ? c.witnesses.map((w) => `cosigned by ${w.witness} at ${w.cosignedAt}`).join('; ') : 'not witnessed';
    out.push(`  size ${c.size}  root ${c.root}  signed ${c.time || '?'}  ${marks}  (${log})`);
  }
  for (const s of r.strayCosignatures)
    out.push(`  stray: size ${s.size} root ${s.root} cosigned by ${s.witness} at ${s.cosignedAt} is not in this log's checkpoint history`);
  return `${out.join('\n')}\n`;
}

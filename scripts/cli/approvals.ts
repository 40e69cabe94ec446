// `agentbox approvals`: the approval requests a running box holds, each with its action, agent, rule and time left.
import { parseArgs } from 'node:util';
import { getFromBox, resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UserError } from './cli-errors.js';

export const usage = `Usage: agentbox approvals [--url URL] [--manifest FILE] [--root DIR] [--json]

List the approval requests the box holds: a supervised agent's ask (a spawn, a connection through
the egress proxy, a provider call, an allowlist change) waiting for an operator. Decide with
\`agentbox approve ID\` or \`agentbox deny ID\`.

Options:
${targetHelp}
  -h, --help       show this help

Exit codes: 0 listed (none pending included), 1 unreachable or refused.`;

/** A request as GET /v1/approvals lists it. */
export interface ListedApproval {
  id: string;
  action: string;
  agent: string | null;
  agentId: string | null;
  arguments: Record<string, unknown>;
  rule: { index: number; id?: string } | null;
  reason: string;
  expires: string;
  digest: string;
}

/** One line per request: id, time left, action and its arguments, agent, rule. */
export function formatApproval(a: ListedApproval, now: number): string {
  const left = Math.max(0, Math.round((Date.parse(a.expires) - now) / 1000));
  const rule = a.rule === null ? 'policy.default' : `rule ${a.rule.index}${a.rule.id ? ` (${a.rule.id})` : ''}`;
  const args = Object.entries(a.arguments)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${a.id}  ${`${left}s`.padStart(5)}  ${a.action.padEnd(13)} ${a.agent ?? '(operator)'}${a.agentId ? ` [${a.agentId}]` : ''}  ${args}  — ${rule}: ${a.reason}`;
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: targetOptions });
  const target = await resolveTarget(values);
  const { status, body } = await getFromBox(target, '/v1/approvals');
  if (status !== 200)
    throw new UserError(`${target.url}/v1/approvals answered ${status}: ${(body as { message?: string }).message ?? JSON.stringify(body)}`, 1);
  const list = (body as { approvals: ListedApproval[] }).approvals;
  if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else if (list.length === 0) process.stdout.write('no approval requests pending\n');
  else for (const a of list) process.stdout.write(`${formatApproval(a, Date.now())}\n`);
  return 0;
}

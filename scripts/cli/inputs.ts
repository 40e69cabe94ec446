// `agentbox inputs`: the agents of a running box waiting for a person, each with its prompt and the last lines of its screen.
import { parseArgs } from 'node:util';
import { call, refusal } from './agent-api.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';

export const usage = `Usage: agentbox inputs [--url URL] [--manifest FILE] [--root DIR] [--json]

List the open input requests of a running box: a tty agent quiet at a prompt such as (y/n),
[Y/n], Continue? or Password: (reason prompt, with the last lines of its screen), or an agent
that asked through the API (reason explicit). Answer with \`agentbox answer ID TEXT\`.

Options:
${targetHelp}
  -h, --help       show this help

Exit codes: 0 listed (none open included), 1 unreachable or refused.`;

/** A request as GET /v1/input-requests lists it. */
export interface ListedInput {
  id: string;
  agentId: string;
  agent: string;
  reason: string;
  prompt: string;
  lines: string[];
  created: string;
}

/** The request's line (id, age, agent, reason, prompt), then its screen lines indented. */
export function formatInput(r: ListedInput, now: number): string {
  const age = Math.max(0, Math.round((now - Date.parse(r.created)) / 1000));
  const head = `${r.id}  ${`${age}s`.padStart(5)}  ${r.agent} [${r.agentId}]  ${r.reason.padEnd(8)}  ${r.prompt}`;
  return [head, ...r.lines.map((l) => `    │ ${l}`)].join('\n');
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: targetOptions });
  const target = await resolveTarget(values);
  const res = await call(target, 'GET', '/v1/input-requests');
  if (res.status !== 200) throw refusal('listing input requests', res);
  const list = res.body['inputRequests'] as ListedInput[];
  if (values.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
  else if (list.length === 0) process.stdout.write('no agent waits for input\n');
  else for (const r of list) process.stdout.write(`${formatInput(r, Date.now())}\n`);
  return 0;
}

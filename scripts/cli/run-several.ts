// `agentbox run -d --count N`: N agents from one start request at once (most often forks of one snapshot, each on its own copy), named NAME-1 … NAME-N.
import { call, type AgentRecord } from './agent-api.js';
import type { BoxTarget } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { whileWaiting } from './wait-line.js';
import { numberedNames, numberedNamesTooLong } from '../../management-api/src/grammar/agent-name.js';

/** At most this many at once: the box builds and starts them together, and a typo of a zero more should not start a thousand. */
export const MAX_COUNT = 64;

/** `--count` as a number from 1 to {@link MAX_COUNT}, or undefined when not given. */
export function countOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > MAX_COUNT)
    throw new UsageError(`--count ${JSON.stringify(value)}: give a whole number from 1 to ${MAX_COUNT}`);
  return Number(value);
}

/** NAME-1 … NAME-N; refused when the longest would not be a name the box accepts. */
export function namesFor(base: string, count: number): string[] {
  const tooLong = numberedNamesTooLong(base, count);
  if (tooLong) throw new UsageError(`--name ${JSON.stringify(base)} is too long for --count ${count}: ${tooLong}`);
  return numberedNames(base, count);
}

/** One start's outcome: its record, or why it was refused. */
type Outcome = { name: string; agent: AgentRecord } | { name: string; status?: number; error?: string; message: string };

/**
 * Post every start at once and say what each became: the ids (or, with `json`, `{started,
 * refused}`) on stdout in name order, each refusal on stderr. Exit 0 when every one started, else
 * 1: those that started keep running (`agentbox kill` them), as a start that failed alone would.
 */
export async function startSeveral(target: BoxTarget, body: Record<string, unknown> & { name: string }, count: number, json: boolean): Promise<number> {
  const names = namesFor(body.name, count);
  const label = body['fromSnapshot'] ? `building ${count} copies of ${String(body['fromSnapshot'])}` : `starting ${count} agents`;
  const settled = await whileWaiting(label, Promise.allSettled(names.map((name) => call(target, 'POST', '/v1/agents', { ...body, name }))));
  // The box could not be reached at all: one message, not N.
  if (settled.every((r) => r.status === 'rejected')) throw (settled[0] as PromiseRejectedResult).reason;
  const outcomes: Outcome[] = settled.map((result, i) => {
    const name = names[i]!;
    if (result.status === 'rejected') {
      const err = result.reason as unknown;
      return { name, message: err instanceof Error ? err.message : String(err) };
    }
    const res = result.value;
    if (res.status === 201) return { name, agent: res.body['agent'] as AgentRecord };
    const { error, message } = res.body as { error?: string; message?: string };
    return { name, status: res.status, ...(error ? { error } : {}), message: message ?? JSON.stringify(res.body) };
  });
  const started = outcomes.flatMap((o) => ('agent' in o ? [o.agent] : []));
  const refused = outcomes.filter((o): o is Exclude<Outcome, { agent: AgentRecord }> => !('agent' in o));
  process.stdout.write(json ? `${JSON.stringify({ started, refused }, null, 2)}\n` : started.map((a) => `${a.id}\n`).join(''));
  for (const r of refused)
    process.stderr.write(`agentbox: starting ${r.name}: ${r.status ?? ''}${r.error ? ` ${r.error}` : ''}${r.status ? ': ' : ''}${r.message}\n`);
  if (refused.length > 0 && started.length > 0)
    process.stderr.write(`agentbox: ${started.length} of ${count} started and run on (agentbox kill ${started.map((a) => a.name).join(' ')} to end them)\n`);
  return refused.length > 0 ? 1 : 0;
}

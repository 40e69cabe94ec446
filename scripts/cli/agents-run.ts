// `agentbox run [options] PROFILE` / `agentbox run [options] -- CMD ARGS…`: start an agent, attached (-it), detached (-d), or followed to its exit.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { call, refusal, type AgentRecord } from './agent-api.js';
import { envOf, follow, launchHelp, launchMode, launchOptions, ttyFields } from './agent-launch.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { snapshotId } from './url-segments.js';
import { UsageError, UserError } from './cli-errors.js';
import { splitCommand } from './split-command.js';
import { countOf, startSeveral } from './run-several.js';
import { whileWaiting } from './wait-line.js';

export const usage = `Usage: agentbox run [options] PROFILE
       agentbox run [options] -- COMMAND [ARG…]

Start an agent on the running box: a profile of the manifest ([agents.PROFILE]) or a command.
Without -d or -t the output is shown until the agent ends; the exit code is the agent's
(128 + N when signal N ended it).

Options:
  --name NAME        the agent's name (default: the profile, or the command's base name)
${launchHelp}
  --cwd DIR          working directory, relative to the workspace (default <workspace>/<name>;
                     with --from-snapshot a new <name>.<8 hex>, or DIR if it is missing or empty)
  --from-snapshot ID start on a copy of a snapshot (a fork: agentbox snapshot ls lists them)
  --checkpoint-every T  snapshot its working directory every T while it runs (30s, 10m, 1h; label
                     "checkpoint"), the --checkpoint-keep N newest kept (default 10)
  --count N          start N agents at once, named NAME-1 … NAME-N (with -d; with --from-snapshot
                     each on its own copy); prints their ids, one a line (at most 64)
  --limit K=V        a budget below the box's: memory=512m, cpu_seconds=60, processes=50, disk=1g,
                     entries=100000 (repeatable)
${targetHelp} (with -d: the agent's record; with --count: {started, refused})
  -h, --help         show this help

Exit codes: the agent's; 0 with -d or after detaching; 1 refused or unreachable (with --count: any
of them refused; those started run on); 2 bad usage.`;

const LIMITS: Record<string, 'memory' | 'cpu_seconds' | 'processes' | 'disk' | 'entries'> = {
  memory: 'memory',
  cpu_seconds: 'cpu_seconds',
  cpu: 'cpu_seconds',
  processes: 'processes',
  disk: 'disk',
  entries: 'entries',
};

/** `--limit K=V` values as the API's limits object. */
export function limitsOf(values: readonly string[] | undefined): Record<string, string | number> | undefined {
  if (!values?.length) return undefined;
  const limits: Record<string, string | number> = {};
  for (const pair of values) {
    const [key, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
    const name = LIMITS[key];
    if (!name || pair.indexOf('=') < 0 || value === '')
      throw new UsageError(`--limit ${JSON.stringify(pair)}: give memory=SIZE, cpu_seconds=N, processes=N, disk=SIZE or entries=N`);
    if (name === 'cpu_seconds' || name === 'processes' || name === 'entries') {
      if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--limit ${key}: ${JSON.stringify(value)} is not a whole number`);
      limits[name] = Number(value);
    } else limits[name] = value;
  }
  return limits;
}

/** `--checkpoint-every T [--checkpoint-keep N]` as the API's checkpoints object. */
export function checkpointsOf(every: string | undefined, keep: string | undefined): { everySec: number; keep?: number } | undefined {
  if (every === undefined) {
    if (keep !== undefined) throw new UsageError('--checkpoint-keep needs --checkpoint-every: how often to take them');
    return undefined;
  }
  const m = /^([1-9][0-9]{0,5})(s|m|h)?$/.exec(every);
  const everySec = m ? Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's') as 's' | 'm' | 'h'] : Number.NaN;
  if (!(everySec >= 1 && everySec <= 86_400))
    throw new UsageError(`--checkpoint-every ${JSON.stringify(every)}: give a time from 1s to 24h, a number and s, m or h (30s, 10m, 1h)`);
  if (keep !== undefined && !(/^[1-9][0-9]{0,2}$/.test(keep) && Number(keep) <= 100))
    throw new UsageError(`--checkpoint-keep ${JSON.stringify(keep)}: give a whole number from 1 to 100`);
  return { everySec, ...(keep !== undefined ? { keep: Number(keep) } : {}) };
}

/** A default agent name from a command: its base name with what names may not hold replaced. */
export function nameFor(command: string): string {
  const base = path
    .basename(command)
    .replace(/[^A-Za-z0-9_-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 64);
  return base || 'agent';
}

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { before, command } = splitCommand(args);
  const { values, positionals } = parseArgs({
    args: before,
    allowPositionals: true,
    options: {
      ...targetOptions,
      ...launchOptions,
      name: { type: 'string' },
      cwd: { type: 'string' },
      'from-snapshot': { type: 'string' },
      count: { type: 'string' },
      'checkpoint-every': { type: 'string' },
      'checkpoint-keep': { type: 'string' },
      limit: { type: 'string', multiple: true },
    },
  });
  const mode = launchMode(values);
  const count = countOf(values.count);
  if (count !== undefined) {
    if (!mode.detach) throw new UsageError('--count starts several agents: add -d (then `agentbox logs` or `agentbox attach` each)');
    if (values.cwd && values['from-snapshot'])
      throw new UsageError('--cwd with --count and --from-snapshot: a fork needs a directory of its own; leave --cwd out (each gets a new one)');
  }
  if (command && positionals.length) throw new UsageError(`give a profile or a command after --, not both ("${positionals[0]}")`);
  if (!command && positionals.length !== 1)
    throw new UsageError(
      positionals.length
        ? `one profile, not ${positionals.length} ("${positionals.join('" "')}"); a command goes after --`
        : 'name a profile, or give a command after --',
    );
  const profile = command ? undefined : positionals[0]!;
  const [cmd, ...cmdArgs] = command ?? [];
  const env = envOf(values.env);
  const limits = limitsOf(values.limit);
  const checkpoints = checkpointsOf(values['checkpoint-every'], values['checkpoint-keep']);
  const body = {
    name: values.name ?? profile ?? nameFor(cmd!),
    ...(profile ? { profile } : { command: cmd, args: cmdArgs }),
    ...(env ? { env } : {}),
    ...(values.cwd ? { cwd: values.cwd } : {}),
    ...(values['from-snapshot'] ? { fromSnapshot: snapshotId(values['from-snapshot']) } : {}),
    ...(limits ? { limits } : {}),
    ...(checkpoints ? { checkpoints } : {}),
    ...ttyFields(mode),
  };
  const target = await resolveTarget(values);
  if (count !== undefined) return startSeveral(target, body, count, values.json === true);
  // A fork's working directory is built before the agent starts: a large snapshot takes a while.
  const starting = call(target, 'POST', '/v1/agents', body);
  const res = body.fromSnapshot ? await whileWaiting(`building ${body.name}'s copy of ${body.fromSnapshot}`, starting) : await starting;
  if (res.status !== 201) {
    const message = String(res.body['message'] ?? '');
    // A box from before agent profiles: its schema knows no "profile" and wants a command.
    if (profile && res.status === 400 && /profile|command/.test(message))
      throw new UserError(
        `this box does not run agent profiles yet (POST /v1/agents answered: ${message}); run the command itself: agentbox run -- COMMAND [ARG…]`,
        1,
      );
    throw refusal('starting the agent', res);
  }
  return follow(target, res.body['agent'] as AgentRecord, mode, values.json === true);
}

// What `run` and `exec` share: their -i/-t/-d flags, and what follows a start (print the id, join the terminal, or follow the output to the exit).
import { exitCodeOf, type AgentRecord } from './agent-api.js';
import { followOutput, writeChunk } from './agent-output.js';
import type { BoxTarget } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { DETACH_KEYS } from './detach-keys.js';
import { attachTerminal, localSize } from './terminal-session.js';

/** The options of both commands, beside the box's. */
export const launchOptions = {
  interactive: { type: 'boolean', short: 'i' },
  tty: { type: 'boolean', short: 't' },
  detach: { type: 'boolean', short: 'd' },
  env: { type: 'string', short: 'e', multiple: true },
} as const;

/** Their option lines of --help. */
export const launchHelp = `  -i, --interactive  relay this terminal's keystrokes (needs -t: an agent without a terminal has no stdin)
  -t, --tty          run on a pseudo-terminal sized like this one; with -i this terminal joins it in raw
                     mode (Ctrl-C goes to the agent); ${DETACH_KEYS} detaches and leaves it running
  -d, --detach       print the id and return; the agent runs on
  -e, --env K=V      an extra, non-secret variable (repeatable)`;

/** How the command follows what it started. */
export interface LaunchMode {
  interactive: boolean;
  tty: boolean;
  detach: boolean;
}

/** The mode from the flags; a combination that means nothing is a usage error. */
export function launchMode(values: { interactive?: boolean; tty?: boolean; detach?: boolean }): LaunchMode {
  const mode = { interactive: values.interactive === true, tty: values.tty === true, detach: values.detach === true };
  if (mode.interactive && !mode.tty) throw new UsageError('-i needs -t: only an agent on a terminal reads keystrokes (use -it)');
  if (mode.detach && mode.interactive) throw new UsageError('-d and -i exclude each other: start it detached (-dt), then `agentbox attach ID`');
  return mode;
}

/** `--env K=V` values as an object. */
export function envOf(values: readonly string[] | undefined): Record<string, string> | undefined {
  if (!values?.length) return undefined;
  const env: Record<string, string> = {};
  for (const pair of values) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env ${JSON.stringify(pair)}: give NAME=VALUE`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** The terminal fields of a start request: tty and the local size (the server's default when this is no terminal). */
export function ttyFields(mode: LaunchMode): { tty?: true; cols?: number; rows?: number } {
  if (!mode.tty) return {};
  return { tty: true, ...(localSize() ?? {}) };
}

/** After the start: the id (-d), the terminal (-t), or the output until the end; resolves to the exit code. */
export async function follow(target: BoxTarget, agent: AgentRecord, mode: LaunchMode, json: boolean): Promise<number> {
  if (mode.detach) {
    process.stdout.write(json ? `${JSON.stringify(agent, null, 2)}\n` : `${agent.id}\n`);
    return 0;
  }
  if (mode.tty) {
    const outcome = await attachTerminal(target, agent.id, { keys: mode.interactive });
    if (outcome.kind === 'detached') {
      process.stderr.write(`\r\nagentbox: detached from ${agent.id}; it runs on (\`agentbox attach ${agent.id}\` to return)\r\n`);
      return 0;
    }
    return exitCodeOf(outcome.agent);
  }
  return exitCodeOf(await followOutput(target, agent.id, 0, writeChunk));
}

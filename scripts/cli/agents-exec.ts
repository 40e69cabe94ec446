// `agentbox exec [-it] [-d] AGENT -- COMMAND [ARG…]`: a command in a running agent's sandbox, directory and identity (POST /v1/agents/{id}/exec).
import { parseArgs } from 'node:util';
import { call, LIVE_STATES, refusal, resolveAgent, type AgentRecord } from './agent-api.js';
import { envOf, follow, launchHelp, launchMode, launchOptions, ttyFields } from './agent-launch.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError, UserError } from './cli-errors.js';
import { splitCommand } from './split-command.js';

export const usage = `Usage: agentbox exec [options] AGENT -- COMMAND [ARG…]

Run a command inside a running agent (AGENT: its id, a unique id prefix, or its name): in its
sandbox (the same launcher policy and Landlock grants, the same uid on a root box), its working
and temporary directories, with its environment, egress credential and API token. The command is
ended when the agent ends. \`agentbox ps\` shows it as "NAME (exec in ID)".

Options:
${launchHelp}
${targetHelp} (with -d: the command's record)
  -h, --help         show this help

Exit codes: the command's; 0 with -d or after detaching; 1 refused or unreachable; 2 bad usage.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { before, command } = splitCommand(args);
  const { values, positionals } = parseArgs({ args: before, allowPositionals: true, options: { ...targetOptions, ...launchOptions } });
  const mode = launchMode(values);
  const [ref, ...rest] = positionals;
  const words = command ?? rest;
  if (!ref) throw new UsageError('name the agent to run the command in');
  if (command && rest.length) throw new UsageError(`unexpected argument "${rest[0]}" before --`);
  if (!words.length) throw new UsageError('give the command to run after --');
  const env = envOf(values.env);
  const target = await resolveTarget(values);
  const agent = await resolveAgent(target, ref);
  if (!LIVE_STATES.has(agent.state)) throw new UserError(`agent ${agent.id} (${agent.name}) is ${agent.state}: a command runs only in a running agent`, 1);
  const [cmd, ...cmdArgs] = words;
  const res = await call(target, 'POST', `/v1/agents/${agent.id}/exec`, { command: cmd, args: cmdArgs, ...(env ? { env } : {}), ...ttyFields(mode) });
  if (res.status !== 201) throw refusal(`running ${JSON.stringify(cmd)} in ${agent.id}`, res);
  return follow(target, res.body['agent'] as AgentRecord, mode, values.json === true);
}

// `agentbox attach AGENT`: join a tty agent's terminal (its screen first), or follow a piped agent's output, until it ends or the detach keys.
import { parseArgs } from 'node:util';
import { exitCodeOf, resolveAgent } from './agent-api.js';
import { followOutput, readOutput, writeChunk } from './agent-output.js';
import { resolveTarget, targetHelp, targetOptions } from './box-target.js';
import { UsageError } from './cli-errors.js';
import { DETACH_KEYS } from './detach-keys.js';
import { attachTerminal } from './terminal-session.js';

export const usage = `Usage: agentbox attach [--no-stdin] AGENT

Join the terminal of a tty agent (AGENT: its id, a unique id prefix, or its name): the box sends
its current screen first, then the output as it comes; keystrokes go to it in raw mode (Ctrl-C
included) and this terminal's size follows SIGWINCH. ${DETACH_KEYS} detaches and leaves it running.
For an agent without a terminal: its output so far, then as it comes, until it ends.

Options:
  --no-stdin       watch only: send no keystrokes (detach with Ctrl-C)
${targetHelp.split('\n').slice(0, 3).join('\n')}
  -h, --help       show this help

Exit codes: the agent's once it ends (128 + N for signal N); 0 after detaching; 1 refused or unreachable.`;

/** Run the command. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { ...targetOptions, 'no-stdin': { type: 'boolean' } } });
  if (positionals.length > 1) throw new UsageError(`one agent, not ${positionals.length}`);
  const target = await resolveTarget(values);
  const agent = await resolveAgent(target, positionals[0]);
  if (agent.tty) {
    const outcome = await attachTerminal(target, agent.id, { keys: values['no-stdin'] !== true });
    if (outcome.kind === 'detached') {
      process.stderr.write(`\r\nagentbox: detached from ${agent.id}; it runs on\r\n`);
      return 0;
    }
    return exitCodeOf(outcome.agent);
  }
  const kept = await readOutput(target, agent.id);
  for (const chunk of kept) writeChunk(chunk);
  return exitCodeOf(await followOutput(target, agent.id, kept.at(-1)?.seq ?? 0, writeChunk));
}

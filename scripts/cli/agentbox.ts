#!/usr/bin/env node
// The `agentbox` command: dispatches to one lazily loaded module per subcommand, so start-up
// only pays for the command that runs.
import { didYouMean } from './command-suggest.js';
import { commands, findCommand } from './commands.js';
import { runCommand } from './run-command.js';

/** The status a shell shows for a process SIGPIPE ended (128 + 13). */
const SIGPIPE_STATUS = 141;

const argv = process.argv.slice(2);

/**
 * A reader that goes away (`agentbox … | head`). Standard error carries only messages and
 * progress: once its reader is gone they are dropped and the command goes on, so a backup or a
 * restore piped into `head` still finishes (ending there left it half made, exit 0). Standard
 * output carries what the command answers: with its reader gone the command stops quietly as a
 * Unix tool ended by SIGPIPE does, exit 141, never 0, so a script sees the output was not taken.
 */
let stderrGone = false;
process.stderr.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE' || stderrGone) {
    stderrGone = true;
    return;
  }
  throw err;
});
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(SIGPIPE_STATUS);
  throw err;
});

function topUsage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return [
    'Usage: agentbox <command> [options]',
    '',
    'Describe a box in agentbox.toml, validate it, render its configs and run it.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `agentbox <command> --help` for the options of a command.',
  ].join('\n');
}

async function main(): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(`${topUsage()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === '--version' || argv[0] === '-v') {
    const { agentboxVersion } = await import('./version.js');
    process.stdout.write(`${agentboxVersion()}\n`);
    return 0;
  }
  const match = findCommand(argv);
  if (!match) {
    const words = [...new Set(commands.map((c) => c.name.split(' ')[0]!))];
    const hint = didYouMean('agentbox ', String(argv[0]), words);
    process.stderr.write(`agentbox: unknown command "${argv.slice(0, 2).join(' ')}"${hint}\n\n${topUsage()}\n`);
    return 2;
  }
  return runCommand(match.command, argv.slice(match.words));
}

process.exitCode = await main();

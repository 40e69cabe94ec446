// Runs one command module: `--help`, usage errors (exit 2), and no stack traces for user errors.
import { reportCommandError } from './cli-errors.js';
import type { CommandEntry } from './command-types.js';

// The errors live in cli-errors.ts (so commands need not import the runner); still exported here
// for commands written against this module.
export { UsageError, UserError } from './cli-errors.js';

/** Load and run `entry` with `args`, mapping errors to exit codes. */
export async function runCommand(entry: CommandEntry, args: string[]): Promise<number> {
  const mod = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${mod.usage}\n`);
    return 0;
  }
  try {
    return await mod.run(args);
  } catch (err) {
    const code = reportCommandError(entry.name, mod.usage, err, args);
    if (code === undefined) throw err; // A bug: keep the stack trace.
    return code;
  }
}

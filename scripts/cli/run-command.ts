// Runs one command module: `--help`, usage errors (exit 2), and no stack traces for user errors.
import type { UserError } from './cli-errors.js';
import type { CommandEntry } from './command-types.js';

// The errors live in cli-errors.ts (so commands need not import the runner); still exported here
// for commands written against this module.
export { UsageError, UserError } from './cli-errors.js';

/** Load and run `entry` with `args`, mapping errors to exit codes. */
export async function runCommand(entry: CommandEntry, args: string[]): Promise<number> {
  const mod = await entry.load();
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(mod.usage + '\n');
    return 0;
  }
  try {
    return await mod.run(args);
  } catch (err) {
    // Matched by name, not instanceof: the bundled bin and the compiled service commands each
    // carry their own copy of these classes.
    const name = (err as Error).name;
    if (name === 'UsageError' || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`agentbox ${entry.name}: ${(err as Error).message}\n\n${mod.usage}\n`);
      return 2;
    }
    if (name === 'UserError') {
      process.stderr.write(`agentbox ${entry.name}: ${(err as Error).message}\n`);
      return (err as UserError).exitCode;
    }
    throw err; // A bug: keep the stack trace.
  }
}

// Runs one command module: `--help`, usage errors (exit 2), and no stack traces for user errors.
import type { CommandEntry } from './commands.js';

/** Raised for bad command-line usage; printed with the command's usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Raised for a problem the user can fix (missing file, refused overwrite); printed plainly. */
export class UserError extends Error {
  override name = 'UserError';
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
  }
}

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

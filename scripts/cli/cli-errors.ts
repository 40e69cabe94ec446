// The errors a command throws for its user: bad usage (exit 2, with the usage text) and fixable problems (printed plainly).
import { unknownOptionMessage } from './unknown-option.js';

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

/**
 * Report a usage or user error of `command` on stderr and return its exit code; undefined for any
 * other error (a bug: the caller rethrows it and keeps the stack trace). Matched by name, not
 * instanceof: the bundled bin and the compiled service commands each carry their own copy of
 * these classes. `args`, the command's arguments, let an unknown option be named as it was typed.
 */
export function reportCommandError(command: string, usage: string, err: unknown, args: readonly string[] = []): number | undefined {
  const e = err as Error & { exitCode?: number; code?: string };
  const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? unknownOptionMessage(command, e.message, args) : undefined;
  if (unknown) {
    process.stderr.write(`agentbox ${command}: ${unknown}\n`);
    return 2;
  }
  if (e.name === 'UsageError' || e.code?.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`agentbox ${command}: ${e.message}\n\n${usage}\n`);
    return 2;
  }
  if (e.name === 'UserError') {
    process.stderr.write(`agentbox ${command}: ${e.message}\n`);
    return e.exitCode ?? 2;
  }
  return undefined;
}

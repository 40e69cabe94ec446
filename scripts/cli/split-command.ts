// Splits a command line at its first `--`: the options before, the command after (passed on untouched).

/** The words before the first `--`, and the words after it (undefined without one, or when nothing follows). */
export function splitCommand(args: readonly string[]): { before: string[]; command?: string[] } {
  const at = args.indexOf('--');
  if (at < 0) return { before: [...args] };
  const command = args.slice(at + 1);
  return { before: args.slice(0, at), ...(command.length ? { command } : {}) };
}

// An argument taken for an unknown option (`agentbox cp -dash.txt …`): said with the argument itself and the command line that takes it as a name.

/**
 * The message for node's ERR_PARSE_ARGS_UNKNOWN_OPTION. Node names only the first letter of a
 * short group (`'-d'` for `-dash.txt`) and suggests `-- "-d"` with unbalanced quotes; here the
 * argument is found in `args` and the command shown again with `--` before it, after which every
 * argument is taken as a name. Undefined when the message is not node's (another version's words).
 */
export function unknownOptionMessage(command: string, message: string, args: readonly string[]): string | undefined {
  const option = /^Unknown option '(-[^']*)'/.exec(message)?.[1];
  if (!option) return undefined;
  // A long option is a mistyped option far more often than a name: only the options are pointed to.
  if (option.startsWith('--')) return `unknown option ${option} (agentbox ${command} --help lists the options)`;
  const end = args.indexOf('--');
  const before = end === -1 ? args : args.slice(0, end);
  const at = before.findIndex((arg) => isShortGroup(arg) && arg.includes(option.slice(1)));
  if (at === -1) return `unknown option ${option} (agentbox ${command} --help lists the options)`;
  const arg = args[at]!;
  const named = arg === option ? option : `${option} (in ${arg})`;
  const rest = args.slice(at + 1);
  // Everything after `--` is a name: an option after the argument would be taken as one too, so the line is only shown when none is.
  const corrected = rest.some((a) => a.startsWith('-') && a !== '-')
    ? `put the options first, then --, then ${quote(arg)} and the names after it`
    : `agentbox ${command} ${[...args.slice(0, at), '--', ...args.slice(at)].map(quote).join(' ')}`;
  return `unknown option ${named}; to give a name starting with -, put -- before it: ${corrected} (agentbox ${command} --help lists the options)`;
}

/** `-abc`: one or more short options (not `--long`, not `-` alone). */
function isShortGroup(arg: string): boolean {
  return arg.length > 1 && arg.startsWith('-') && !arg.startsWith('--');
}

/** `arg` as a shell reads it back: as it is when plain, else in single quotes. */
function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}

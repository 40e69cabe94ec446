// The shapes of a subcommand: the module that runs it and its entry in the command table.

/** What every command module exports. */
export interface CommandModule {
  /** Full `--help` text. */
  usage: string;
  /** Run with the arguments after the command name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}

/** A subcommand of `agentbox`. */
export interface CommandEntry {
  /** One or two words, e.g. `config validate`. */
  name: string;
  summary: string;
  load: () => Promise<CommandModule>;
}

// The errors a command throws for its user: bad usage (exit 2, with the usage text) and fixable problems (printed plainly).

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

// The age keys that seal a backup's secrets: recipient keys (public) from --recipient and --recipients-file, and the identities
// (private) that open them from --identity-file — a file, never an argument, where other users would see it in ps.
import { readFileSync } from 'node:fs';
import { checkRecipients, parseIdentities } from '../../management-api/src/backup/secrets-age.js';
import { SecretsSealError } from '../../management-api/src/backup/secrets-seal.js';
import { UserError } from './cli-errors.js';

/** A file the operator names for a key or passphrase, as text; unreadable, it is an error naming it. */
export function readKeyFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the ${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
}

/** Every recipient given, checked; undefined when none is. */
export function readRecipients(given: readonly string[] | undefined, file: string | undefined): string[] | undefined {
  const recipients = [...(given ?? [])];
  if (file !== undefined) {
    // One per line, as age's -R reads them: blank lines and # comments skipped.
    for (const line of readKeyFile(file, 'recipients file').split(/\r?\n/)) {
      const key = line.trim();
      if (key !== '' && !key.startsWith('#')) recipients.push(key);
    }
    if (recipients.length === 0) throw new UserError(`the recipients file ${file} holds no recipient key`);
  }
  if (recipients.length === 0) return undefined;
  try {
    checkRecipients(recipients);
  } catch (err) {
    if (err instanceof SecretsSealError) throw new UserError(err.message);
    throw err;
  }
  return recipients;
}

/** The identities in `file`, checked; undefined when no file is given. */
export function readIdentities(file: string | undefined): string[] | undefined {
  if (file === undefined) return undefined;
  try {
    return parseIdentities(readKeyFile(file, 'identity file'), file);
  } catch (err) {
    if (err instanceof SecretsSealError) throw new UserError(err.message);
    throw err;
  }
}

// The passphrase that seals a backup's secrets: from a file (--passphrase-file) or the
// AGENTBOX_BACKUP_PASSPHRASE variable, never from the command line, where other users see it in ps.
import { readKeyFile } from './backup-keys.js';
import { UserError } from './cli-errors.js';

/**
 * The passphrase, or undefined when none is given. The variable is taken out of `env` whichever way
 * the passphrase is given, and whether it is used or not: a child (ionice) inherits the environment.
 */
export function readPassphrase(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const fromEnv = env['AGENTBOX_BACKUP_PASSPHRASE'];
  delete env['AGENTBOX_BACKUP_PASSPHRASE'];
  if (file !== undefined) {
    const text = readKeyFile(file, 'passphrase file');
    // One line: the final newline an editor adds is not part of it.
    const passphrase = text.replace(/\r?\n$/, '');
    if (!passphrase) throw new UserError(`the passphrase file ${file} is empty`);
    return passphrase;
  }
  return fromEnv ? fromEnv : undefined;
}

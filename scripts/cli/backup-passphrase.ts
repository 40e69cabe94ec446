// The passphrase that seals a backup's secrets: from a file (--passphrase-file) or the
// AGENTBOX_BACKUP_PASSPHRASE variable, never from the command line, where other users see it in ps.
import { readKeyFile } from './backup-keys.js';
import { UserError } from './cli-errors.js';

/** The passphrase, or undefined when none is given. */
export function readPassphrase(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (file !== undefined) {
    const text = readKeyFile(file, 'passphrase file');
    // One line: the final newline an editor adds is not part of it.
    const passphrase = text.replace(/\r?\n$/, '');
    if (!passphrase) throw new UserError(`the passphrase file ${file} is empty`);
    return passphrase;
  }
  const fromEnv = env['AGENTBOX_BACKUP_PASSPHRASE'];
  return fromEnv ? fromEnv : undefined;
}

// The passphrase that seals a backup's secrets: from a file (--passphrase-file) or the
// AGENTBOX_BACKUP_PASSPHRASE variable, never from the command line, where other users see it in ps.
import { readFileSync } from 'node:fs';
import { UserError } from './cli-errors.js';

/** The passphrase, or undefined when none is given. */
export function readPassphrase(file: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new UserError(
        `cannot read the passphrase file ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`,
      );
    }
    // One line: the final newline an editor adds is not part of it.
    const passphrase = text.replace(/\r?\n$/, '');
    if (!passphrase) throw new UserError(`the passphrase file ${file} is empty`);
    return passphrase;
  }
  const fromEnv = env['AGENTBOX_BACKUP_PASSPHRASE'];
  return fromEnv ? fromEnv : undefined;
}

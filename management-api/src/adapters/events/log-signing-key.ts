// The event log's signing key: an Ed25519 signed-note key in a 0600 file in the secrets
// directory, created at the first open; only its verifier key is ever printed or logged.
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { generateSignerKey, NoteError, parseSignerKey, type NoteSigner } from '../../tlog/signed-note.js';

/** The signing key file cannot be used; the message names the file and the fix, never the key. */
export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

/**
 * Load the key at `file`, creating it when absent. Its name is the log's origin: `agentbox/log/`
 * and 16 random hex digits, chosen once, so the origin stays the same for as long as the key does.
 */
export async function loadSigningKey(file: string, logger?: Logger): Promise<NoteSigner> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const info = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!info) {
    const key = generateSignerKey(`agentbox/log/${randomBytes(8).toString('hex')}`);
    try {
      await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadSigningKey(file, logger);
      throw err;
    }
    const signer = parseSignerKey(key);
    logger?.info({ event: 'EventLogKeyCreated', file, verifierKey: signer.verifierKey }, 'created the event log signing key');
    return signer;
  }
  if (!info.isFile())
    throw new SigningKeyError(`${file} is not a regular file (a symlink or directory is refused); remove it and restart to create a new log signing key`);
  if (info.mode & 0o077) {
    await chmod(file, 0o600);
    logger?.warn(
      { event: 'EventLogKeyPermissionsRepaired', file, previousMode: (info.mode & 0o777).toString(8) },
      'the event log signing key was readable by others; set it to 0600',
    );
  }
  try {
    return parseSignerKey(await readFile(file, 'utf8'));
  } catch (err) {
    if (err instanceof NoteError)
      throw new SigningKeyError(
        `${file}: ${err.message}; restore it from a backup, or remove it to start a new log identity (checkpoints signed so far then no longer verify with the new key)`,
      );
    throw err;
  }
}

// The mesh host's witness key: an Ed25519 cosigner key (C2SP tlog-cosignature, type 0x04) in a 0600
// file in the secrets directory, created at the first start; only its verifier key is printed or logged.
import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { generateCosignerKey, parseCosignerKey, type Cosigner } from '../../tlog/cosignature.js';
import { NoteError } from '../../tlog/signed-note.js';

/** The key file's name in the secrets directory. */
export const WITNESS_KEY_FILE = 'mesh-witness.key';

/** The witness key file cannot be used; the message names the file and the fix, never the key. */
export class WitnessKeyError extends Error {
  override name = 'WitnessKeyError';
}

/**
 * Load the key at `file`, creating it when absent. Its name (`agentbox/witness/` and 16 random hex
 * digits) is chosen once: cosignatures name the witness by it, and a new key is a new witness.
 */
export async function loadWitnessKey(file: string, logger?: Logger): Promise<Cosigner> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const info = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!info) {
    const key = generateCosignerKey(`agentbox/witness/${randomBytes(8).toString('hex')}`);
    try {
      await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another replica on the same volume created it first: use theirs.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return loadWitnessKey(file, logger);
      throw err;
    }
    const cosigner = parseCosignerKey(key);
    logger?.info({ event: 'MeshWitnessKeyCreated', file, verifierKey: cosigner.verifierKey }, 'created the mesh witness key');
    return cosigner;
  }
  if (!info.isFile())
    throw new WitnessKeyError(`${file} is not a regular file (a symlink or directory is refused); remove it and restart to create a new witness key`);
  if (info.mode & 0o077) {
    await chmod(file, 0o600);
    logger?.warn(
      { event: 'MeshWitnessKeyPermissionsRepaired', file, previousMode: (info.mode & 0o777).toString(8) },
      'the mesh witness key was readable by others; set it to 0600',
    );
  }
  try {
    return parseCosignerKey(await readFile(file, 'utf8'));
  } catch (err) {
    if (err instanceof NoteError)
      throw new WitnessKeyError(
        `${file}: ${err.message}; restore it from a backup, or remove it to start a new witness identity (members then see cosignatures by another key)`,
      );
    throw err;
  }
}

// The box's Nostr identity: a secp256k1 secret key in a 0600 file on the state volume, created
// once and reused; only the public key is ever printed or logged.
import { chmod, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';

/** The identity file is unusable; the message says how to fix it. */
export class IdentityKeyError extends Error {
  override name = 'IdentityKeyError';
}

/** Load or create the identity key at `file`; returns the public key (hex) and whether it was created. */
export async function ensureIdentityKey(file: string): Promise<{ pubkey: string; created: boolean }> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const st = await lstat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!st) {
    const secret = generateSecretKey();
    try {
      await writeFile(file, bytesToHex(secret) + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process won the race: use its key.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return ensureIdentityKey(file);
      throw err;
    }
    return { pubkey: getPublicKey(secret), created: true };
  }
  if (!st.isFile()) throw new IdentityKeyError(`${file} is not a regular file; remove it to generate a new identity`);
  if (st.mode & 0o077) await chmod(file, 0o600);
  const hex = (await readFile(file, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new IdentityKeyError(`${file} does not hold a 64-character hex secret key; restore it from backup or remove it to generate a new identity`);
  return { pubkey: getPublicKey(hexToBytes(hex)), created: false };
}

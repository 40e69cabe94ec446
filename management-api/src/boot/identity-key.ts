// The box's Nostr identity: a secp256k1 secret key in a 0600 file on the state volume, created
// once and reused (or imported from an operator's file); only the public key is ever printed or logged.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { decode } from 'nostr-tools/nip19';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';
import { ensureSecretFile, replaceSecretFile, SecretFileError, type SecretKind } from '../auth/secret-file.js';

const identityKey: SecretKind = {
  label: 'identity key',
  createdEvent: 'IdentityKeyCreated',
  repairedEvent: 'IdentityKeyPermissionsRepaired',
  generate: () => bytesToHex(generateSecretKey()),
  invalid: (hex) =>
    /^[0-9a-f]{64}$/.test(hex) ? undefined : 'does not hold a 64-character hex secret key; restore it from backup or remove it to generate a new identity',
};

/** Load or create the identity key at `file`; returns the public key (hex) and whether it was created. */
export async function ensureIdentityKey(file: string, logger: Logger): Promise<{ pubkey: string; created: boolean }> {
  const { pubkey, created } = await loadIdentityKey(file, logger);
  return { pubkey, created };
}

/** Load or create the identity key at `file`, secret included: for the signer only, never for output. */
export async function loadIdentityKey(file: string, logger: Logger): Promise<{ secret: Uint8Array; pubkey: string; created: boolean }> {
  const { value, created } = await ensureSecretFile(file, identityKey, logger);
  const secret = hexToBytes(value);
  return { secret, pubkey: getPublicKey(secret), created };
}

/**
 * Parse an operator's secret key: `nsec1…` (NIP-19) or 64 hex characters, surrounding blanks
 * ignored. The error never quotes the text (it may be a damaged secret).
 */
export function parseSecretKey(text: string, source: string): Uint8Array {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return hexToBytes(value.toLowerCase());
  if (value.startsWith('nsec1')) {
    try {
      const decoded = decode(value as `nsec1${string}`);
      if (decoded.type === 'nsec') return decoded.data;
    } catch {
      // Reported below, without the value.
    }
    throw new SecretFileError(`${source} holds an nsec whose checksum or length is wrong; export the key again`);
  }
  throw new SecretFileError(`${source} holds neither an nsec1… key nor 64 hex characters; put the secret key alone in the file`);
}

/**
 * Import the secret key held in `source` as the box identity at `file` (0600, written atomically).
 * An existing, different identity is replaced only with `replace` (the box's public identity changes).
 */
export async function importIdentityKey(
  file: string,
  source: string,
  options: { replace: boolean; logger: Logger },
): Promise<{ pubkey: string; replaced: boolean; unchanged: boolean }> {
  const text = await readFile(source, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new SecretFileError(`cannot read ${source}: ${err.code ?? err.message}`);
  });
  const secret = parseSecretKey(text, source);
  const pubkey = getPublicKey(secret);
  const current = await readFile(file, 'utf8').then(
    (t) => t.trim(),
    () => undefined,
  );
  if (current === bytesToHex(secret)) return { pubkey, replaced: false, unchanged: true };
  if (current !== undefined && !options.replace)
    throw new SecretFileError(`${file} already holds an identity key; pass --replace to replace it (the box's public identity will change)`);
  await replaceSecretFile(file, bytesToHex(secret));
  options.logger.info({ event: 'IdentityKeyImported', file, pubkey, replaced: current !== undefined }, 'imported the identity key');
  return { pubkey, replaced: current !== undefined, unchanged: false };
}

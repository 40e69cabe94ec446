// The box's Nostr identity: a secp256k1 secret key in a 0600 file on the state volume, created
// once and reused; only the public key is ever printed or logged.
import type { Logger } from 'pino';
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure';
import { bytesToHex, hexToBytes } from 'nostr-tools/utils';
import { ensureSecretFile, type SecretKind } from '../auth/secret-file.js';

const identityKey: SecretKind = {
  label: 'identity key',
  createdEvent: 'IdentityKeyCreated',
  repairedEvent: 'IdentityKeyPermissionsRepaired',
  generate: () => bytesToHex(generateSecretKey()),
  invalid: (hex) => (/^[0-9a-f]{64}$/.test(hex) ? undefined : 'does not hold a 64-character hex secret key; restore it from backup or remove it to generate a new identity'),
};

/** Load or create the identity key at `file`; returns the public key (hex) and whether it was created. */
export async function ensureIdentityKey(file: string, logger: Logger): Promise<{ pubkey: string; created: boolean }> {
  const { value, created } = await ensureSecretFile(file, identityKey, logger);
  return { pubkey: getPublicKey(hexToBytes(value)), created };
}

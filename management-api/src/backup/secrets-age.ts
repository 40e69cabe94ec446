// Secrets in a backup, sealed to recipient keys with age (X25519): the machine that makes backups
// holds only the public keys, and only a holder of a matching identity can open them.
import * as age from 'age-encryption';
import { decodeSecrets, encodeSecrets, SecretsSealError } from './secrets-seal.js';

/** An age X25519 recipient: `age1` and 58 bech32 characters. */
const RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

/** An age X25519 identity, as age-keygen writes it. */
const IDENTITY = /^AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}$/;

/** Refuse anything but age X25519 recipients, naming the one refused. */
export function checkRecipients(recipients: readonly string[]): void {
  if (recipients.length === 0) throw new SecretsSealError('no recipient key given');
  for (const r of recipients)
    if (!RECIPIENT.test(r)) throw new SecretsSealError(`${JSON.stringify(r.slice(0, 80))} is not an age recipient key (age1…, as age-keygen -y prints it)`);
}

/** The identities in an identity file's text: one per line, `#` comments and blank lines skipped, as age reads them. */
export function parseIdentities(text: string, shown: string): string[] {
  const identities: string[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!IDENTITY.test(line)) throw new SecretsSealError(`${shown} line ${i + 1} is not an age identity (AGE-SECRET-KEY-1…, as age-keygen writes it)`);
    identities.push(line);
  }
  if (identities.length === 0) throw new SecretsSealError(`${shown} holds no age identity`);
  return identities;
}

/** A new identity and its recipient key. */
export async function newIdentity(): Promise<{ identity: string; recipient: string }> {
  const identity = await age.generateX25519Identity();
  return { identity, recipient: await age.identityToRecipient(identity) };
}

/** Seal `secrets` (name → content) to every one of `recipients`: the age file's bytes. */
export async function sealSecretsTo(secrets: Readonly<Record<string, Buffer>>, recipients: readonly string[]): Promise<Uint8Array> {
  checkRecipients(recipients);
  const encrypter = new age.Encrypter();
  for (const r of recipients) encrypter.addRecipient(r);
  const plain = encodeSecrets(secrets);
  try {
    return await encrypter.encrypt(plain);
  } finally {
    plain.fill(0);
  }
}

/**
 * Open an age file sealed by {@link sealSecretsTo} with one of `identities`: name → content.
 * `sealedTo` (the recipient keys the backup's index names) is said when no identity opens it.
 */
export async function openSecretsWith(data: Uint8Array, identities: readonly string[], sealedTo: readonly string[] = []): Promise<Record<string, Buffer>> {
  const decrypter = new age.Decrypter();
  for (const id of identities) decrypter.addIdentity(id);
  let plain: Uint8Array;
  try {
    plain = await decrypter.decrypt(data);
  } catch (err) {
    const why = (err as Error).message;
    if (!/no identity matched/.test(why))
      throw new SecretsSealError(`the sealed secrets cannot be opened: ${why} (the file was changed, or is not what this backup sealed)`);
    const given = await Promise.all(identities.map((id) => age.identityToRecipient(id)));
    throw new SecretsSealError(
      `no identity given opens the sealed secrets: they were sealed to ${sealedTo.length ? sealedTo.join(', ') : 'other recipient keys'}, the identities given are those of ${given.join(', ')}`,
    );
  }
  try {
    return decodeSecrets(Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength));
  } finally {
    plain.fill(0);
  }
}

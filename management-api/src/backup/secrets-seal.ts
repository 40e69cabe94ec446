// Secrets in a backup, sealed with a passphrase: scrypt derives the key, AES-256-GCM encrypts and
// authenticates, so a wrong passphrase or an edited file is refused rather than restored as garbage.
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/** scrypt cost: 2^15 × 8 × 128 bytes = 32 MiB and about a tenth of a second per derivation. */
const KDF = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const;

/** The most a sealed file may ask of scrypt: well above what {@link KDF} seals with, far below what would stall a restore. */
const MAX_KDF = { N: 2 ** 17, r: 16, p: 16 } as const;

/** The sealed file's JSON. */
interface Sealed {
  v: 1;
  kdf: { name: 'scrypt'; N: number; r: number; p: number; salt: string };
  iv: string;
  tag: string;
  data: string;
}

/** The passphrase is wrong or the file was changed. */
export class SecretsSealError extends Error {
  override name = 'SecretsSealError';
}

function deriveKey(passphrase: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(passphrase.normalize('NFKC'), salt, 32, { ...params, maxmem: KDF.maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** The secrets as the plaintext both seals encrypt: JSON of name → base64 content. */
export function encodeSecrets(secrets: Readonly<Record<string, Buffer>>): Buffer {
  return Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(secrets).map(([n, v]) => [n, v.toString('base64')]))));
}

/** {@link encodeSecrets} read back. */
export function decodeSecrets(plain: Buffer): Record<string, Buffer> {
  const parsed = JSON.parse(plain.toString('utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(parsed).map(([n, v]) => [n, Buffer.from(v, 'base64')]));
}

/** Refuse a passphrase too short to seal with; a backup calls it before it copies anything. */
export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < 8) throw new SecretsSealError('the passphrase is shorter than 8 characters');
}

/** Seal `secrets` (name → content) with `passphrase`; the result is the file's text. */
export async function sealSecrets(secrets: Readonly<Record<string, Buffer>>, passphrase: string): Promise<string> {
  checkPassphrase(passphrase);
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = await deriveKey(passphrase, salt, KDF);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const plain = encodeSecrets(secrets);
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  plain.fill(0);
  const sealed: Sealed = {
    v: 1,
    kdf: { name: 'scrypt', N: KDF.N, r: KDF.r, p: KDF.p, salt: salt.toString('base64') },
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  return `${JSON.stringify(sealed)}\n`;
}

/** Open a sealed file's text with `passphrase`: name → content. */
export async function openSecrets(text: string, passphrase: string): Promise<Record<string, Buffer>> {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(text) as Sealed;
  } catch {
    throw new SecretsSealError('the sealed secrets are not JSON');
  }
  if (sealed.v !== 1 || sealed.kdf?.name !== 'scrypt') throw new SecretsSealError('the sealed secrets are in an unknown format');
  const { N, r, p } = sealed.kdf;
  // Bounded in work as well as memory: an edited file naming p = 10^6 would hold a restore for hours.
  if (![N, r, p].every((n) => Number.isSafeInteger(n) && n > 0) || N > MAX_KDF.N || r > MAX_KDF.r || p > MAX_KDF.p || 128 * N * r > KDF.maxmem)
    throw new SecretsSealError('the sealed secrets name scrypt parameters out of range');
  const key = await deriveKey(passphrase, Buffer.from(sealed.kdf.salt, 'base64'), { N, r, p });
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
  } catch {
    throw new SecretsSealError('the passphrase is wrong, or the sealed secrets were changed');
  }
  try {
    return decodeSecrets(plain);
  } finally {
    plain.fill(0);
  }
}

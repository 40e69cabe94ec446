// C2SP tlog-cosignature v1 with Ed25519 (signature type 0x04): a witness's timestamped signature
// line over a checkpoint's note text, its keys, and the check of a cosigned note.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { isKeyName, NoteError, splitNote } from './signed-note.js';

/** The signature type byte of timestamped Ed25519 cosignatures. */
export const COSIGNATURE_V1 = 0x04;
/** Key ID (4) || big-endian timestamp (8) || Ed25519 signature (64). */
const LINE_BYTES = 4 + 8 + 64;
const MAX_TIMESTAMP = 2n ** 63n - 1n;
// DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS#8) and public key (SPKI) for node:crypto.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** What cosigns checkpoints: never logged, never printed. */
export interface Cosigner {
  name: string;
  keyId: Buffer;
  /** `<name>+<8 hex>+<base64(0x04 || public key)>`, the vkey others check cosignatures with. */
  verifierKey: string;
  /** The signature line (`— <name> <base64>`, no newline) over `checkpointText` at `timestamp` (POSIX seconds). */
  cosign(checkpointText: string, timestamp: number): string;
}

/** What checks a witness's cosignatures. */
export interface CosignatureVerifier {
  name: string;
  keyId: Buffer;
  verifierKey: string;
  /** The timestamp (POSIX seconds) of a valid cosignature of `checkpointText`, or undefined when `signature` (timestamp || Ed25519) does not verify. */
  verify(checkpointText: string, signature: Buffer): number | undefined;
}

/** A cosignature found valid in a note. */
export interface VerifiedCosignature {
  witness: string;
  keyId: string;
  /** POSIX seconds. */
  timestamp: number;
}

/** key ID = SHA-256(name || 0x0A || 0x04 || public key)[:4]. */
export function cosignerKeyId(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(name)
    .update(Buffer.from([0x0a, COSIGNATURE_V1]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** The message an Ed25519 cosignature v1 signs: the header line, the time line, then the checkpoint text. */
export function cosignedMessage(checkpointText: string, timestamp: number): Buffer {
  return Buffer.from(`cosignature/v1\ntime ${timestamp}\n${checkpointText}`, 'utf8');
}

/** A new cosigner key string for `name`: `PRIVATE+KEY+<name>+<id>+<base64(0x04 || seed)>`. */
export function generateCosignerKey(name: string): string {
  if (!isKeyName(name)) throw new NoteError(`key name ${JSON.stringify(name)} is empty or holds a space or "+"`);
  const der = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' });
  const seed = der.subarray(der.length - 32);
  const pub = rawPublicKey(privateKeyOf(seed));
  return `PRIVATE+KEY+${name}+${cosignerKeyId(name, pub).toString('hex')}+${Buffer.concat([Buffer.from([COSIGNATURE_V1]), seed]).toString('base64')}`;
}

/** Parse a cosigner key string (its type must be 0x04, its ID must match its key). */
export function parseCosignerKey(text: string): Cosigner {
  const m = /^PRIVATE\+KEY\+([^+]+)\+([^+]+)\+(.+)$/s.exec(text.trim());
  if (!m) throw new NoteError('a cosigner key reads PRIVATE+KEY+<name>+<8 hex digits>+<base64 key>');
  const [, name, id, material] = m as unknown as [string, string, string, string];
  const key = privateKeyOf(keyMaterial(name, id, material));
  const pub = rawPublicKey(key);
  const keyId = cosignerKeyId(name, pub);
  if (keyId.toString('hex') !== id) throw new NoteError(`the cosigner key's ID ${id} does not match its key`);
  return {
    name,
    keyId,
    verifierKey: formatCosignerVerifierKey(name, pub),
    cosign(checkpointText, timestamp) {
      checkTimestamp(timestamp);
      const time = Buffer.alloc(8);
      time.writeBigUInt64BE(BigInt(timestamp));
      const signature = sign(null, cosignedMessage(checkpointText, timestamp), key);
      return `— ${name} ${Buffer.concat([keyId, time, signature]).toString('base64')}`;
    },
  };
}

/** The verifier key of a cosigner: `<name>+<8 hex>+<base64(0x04 || public key)>`. */
export function formatCosignerVerifierKey(name: string, publicKey: Buffer): string {
  return `${name}+${cosignerKeyId(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([COSIGNATURE_V1]), publicKey]).toString('base64')}`;
}

/** Parse a cosigner's verifier key; a key of another type (a log's 0x01 key) is refused by name. */
export function parseCosignatureVerifier(text: string): CosignatureVerifier {
  const m = /^([^+]+)\+([^+]+)\+(.+)$/s.exec(text.trim());
  if (!m) throw new NoteError('a witness verifier key reads <name>+<8 hex digits>+<base64 key>');
  const [, name, id, material] = m as unknown as [string, string, string, string];
  const raw = keyMaterial(name, id, material);
  const keyId = cosignerKeyId(name, raw);
  if (keyId.toString('hex') !== id) throw new NoteError(`the witness verifier key's ID ${id} does not match its key (expected ${keyId.toString('hex')})`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    throw new NoteError('the witness verifier key is not a valid Ed25519 public key');
  }
  return {
    name,
    keyId,
    verifierKey: text.trim(),
    verify(checkpointText, signature) {
      if (signature.length !== LINE_BYTES - 4) return undefined;
      const time = signature.readBigUInt64BE(0);
      if (time > MAX_TIMESTAMP) return undefined;
      const timestamp = Number(time);
      return verify(null, cosignedMessage(checkpointText, timestamp), key, signature.subarray(8)) ? timestamp : undefined;
    },
  };
}

/**
 * The cosignature by `verifier` in `note` (a checkpoint with its log's signature and cosignature
 * lines). Lines by other keys are ignored; none by this witness, or one that fails, throws
 * NoteError. `notAfter` (POSIX seconds) refuses a timestamp in the future.
 */
export function verifyCosignature(note: string, verifier: CosignatureVerifier, notAfter?: number): VerifiedCosignature {
  const { text, signatures } = splitNote(note);
  const mine = signatures.filter((s) => s.name === verifier.name && s.keyId.equals(verifier.keyId));
  if (!mine.length) throw new NoteError(`the checkpoint carries no cosignature by the witness ${verifier.name} (key ID ${verifier.keyId.toString('hex')})`);
  let timestamp = -1;
  for (const s of mine) {
    const at = verifier.verify(text, s.signature);
    if (at === undefined)
      throw new NoteError(`the cosignature by ${verifier.name} does not verify: the checkpoint was altered, or the line is not a cosignature/v1 by this key`);
    if (notAfter !== undefined && at > notAfter)
      throw new NoteError(`the cosignature by ${verifier.name} is dated ${new Date(at * 1000).toISOString()}, in the future`);
    timestamp = Math.max(timestamp, at);
  }
  return { witness: verifier.name, keyId: verifier.keyId.toString('hex'), timestamp };
}

/** `note` with `line` added after its last signature line. */
export function addSignatureLine(note: string, line: string): string {
  splitNote(note);
  return `${note}${line}\n`;
}

function checkTimestamp(timestamp: number): void {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new NoteError(`a cosignature timestamp is a non-negative integer of seconds, not ${timestamp}`);
}

function keyMaterial(name: string, id: string, material: string): Buffer {
  if (!isKeyName(name)) throw new NoteError('the key name is empty or holds a space');
  if (!/^[0-9a-f]{8}$/.test(id)) throw new NoteError('the key ID is not 8 lowercase hex digits');
  const raw = Buffer.from(material, 'base64');
  if (raw.toString('base64') !== material || raw.length !== 33) throw new NoteError('the key material is not base64 of a type byte and a 32-byte key');
  if (raw[0] !== COSIGNATURE_V1)
    throw new NoteError(
      `key type 0x${raw[0]!.toString(16).padStart(2, '0')} is not a cosignature/v1 key (0x04)${raw[0] === 0x01 ? ': this is a log key, not a witness key' : ''}`,
    );
  return raw.subarray(1);
}

function privateKeyOf(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

function rawPublicKey(key: KeyObject): Buffer {
  const der = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

// C2SP signed-note with Ed25519 (type 0x01): keys as Go's sumdb/note writes them
// ("PRIVATE+KEY+<name>+<id>+<base64>" and "<name>+<id>+<base64>"), signing and opening notes.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** The signature type byte of Ed25519 in signed notes. */
const ED25519 = 0x01;
// DER prefixes that wrap a raw 32-byte Ed25519 seed (PKCS#8) and public key (SPKI) for node:crypto.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** A key, note or signature that cannot be used; the message says what is wrong (never the secret). */
export class NoteError extends Error {
  override name = 'NoteError';
}

/** What signs notes: never logged, never printed. */
export interface NoteSigner {
  name: string;
  /** The 4-byte key ID. */
  keyId: Buffer;
  /** The verifier key string others check signatures with. */
  verifierKey: string;
  sign(message: Buffer): Buffer;
}

/** What checks a signer's signatures. */
export interface NoteVerifier {
  name: string;
  keyId: Buffer;
  verify(message: Buffer, signature: Buffer): boolean;
}

/** A key name: non-empty, no Unicode space, no plus (they separate the fields of key strings). */
export function isKeyName(name: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a key name may hold no control character (signed-note).
  return name.length > 0 && !/[\s+\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u.test(name) && !/[\u0000-\u001f]/.test(name);
}

/** key ID = SHA-256(name || 0x0A || 0x01 || public key)[:4]. */
export function keyIdOf(name: string, publicKey: Buffer): Buffer {
  return createHash('sha256')
    .update(name)
    .update(Buffer.from([0x0a, ED25519]))
    .update(publicKey)
    .digest()
    .subarray(0, 4);
}

/** A new Ed25519 signer key string for `name`. */
export function generateSignerKey(name: string): string {
  if (!isKeyName(name)) throw new NoteError(`key name ${JSON.stringify(name)} is empty or holds a space or "+"`);
  const der = generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' });
  const seed = der.subarray(der.length - 32);
  const pub = publicKeyOf(privateKeyOf(seed));
  return `PRIVATE+KEY+${name}+${keyIdOf(name, pub).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), seed]).toString('base64')}`;
}

/** Parse a signer key string (its ID is checked against its key). */
export function parseSignerKey(text: string): NoteSigner {
  const parts = splitFields(text.trim(), 5);
  if (parts.length !== 5 || parts[0] !== 'PRIVATE' || parts[1] !== 'KEY')
    throw new NoteError('a signer key reads PRIVATE+KEY+<name>+<8 hex digits>+<base64 key>');
  const [, , name, id, material] = parts as [string, string, string, string, string];
  const raw = decodeKeyMaterial(name, id, material);
  const key = privateKeyOf(raw);
  const pub = publicKeyOf(key);
  const keyId = keyIdOf(name, pub);
  if (keyId.toString('hex') !== id) throw new NoteError(`the signer key's ID ${id} does not match its key`);
  return {
    name,
    keyId,
    verifierKey: formatVerifierKey(name, pub),
    sign: (message) => sign(null, message, key),
  };
}

/** The verifier key string of an Ed25519 public key: `<name>+<8 hex>+<base64(0x01 || key)>`. */
export function formatVerifierKey(name: string, publicKey: Buffer): string {
  return `${name}+${keyIdOf(name, publicKey).toString('hex')}+${Buffer.concat([Buffer.from([ED25519]), publicKey]).toString('base64')}`;
}

/** Parse a verifier key string (its ID is checked against its key). */
export function parseVerifierKey(text: string): NoteVerifier {
  const parts = splitFields(text.trim(), 3);
  if (parts.length !== 3) throw new NoteError('a verifier key reads <name>+<8 hex digits>+<base64 key>');
  const [name, id, material] = parts as [string, string, string];
  const raw = decodeKeyMaterial(name, id, material);
  const keyId = keyIdOf(name, raw);
  if (keyId.toString('hex') !== id) throw new NoteError(`the verifier key's ID ${id} does not match its key (expected ${keyId.toString('hex')})`);
  let key: KeyObject;
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    throw new NoteError('the verifier key is not a valid Ed25519 public key');
  }
  return { name, keyId, verify: (message, signature) => signature.length === 64 && verify(null, message, key, signature) };
}

/** Sign `text` (ending in a newline): the note is the text, a blank line and the signature line. */
export function signNote(text: string, signer: NoteSigner): string {
  checkText(text);
  const signature = Buffer.concat([signer.keyId, signer.sign(Buffer.from(text, 'utf8'))]).toString('base64');
  return `${text}\n— ${signer.name} ${signature}\n`;
}

/** One signature line of a note. */
export interface NoteSignature {
  name: string;
  keyId: Buffer;
  signature: Buffer;
}

/** Split a note into its text and signature lines, refusing a malformed one. */
export function splitNote(note: string): { text: string; signatures: NoteSignature[] } {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a note may hold no control character but newline (signed-note).
  if (/[\u0000-\u0009\u000b-\u001f]/.test(note)) throw new NoteError('the note holds a control character');
  if (!note.endsWith('\n')) throw new NoteError('the note does not end with a newline');
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new NoteError('the note has no blank line before its signatures');
  const text = note.slice(0, split + 1);
  const lines = note.slice(split + 2, -1).split('\n');
  if (lines.length > 100) throw new NoteError('the note carries more than 100 signatures');
  const signatures = lines.map((line) => {
    const m = /^— (\S+) ([A-Za-z0-9+/]+={0,2})$/u.exec(line);
    if (!m || !isKeyName(m[1]!)) throw new NoteError(`malformed signature line: ${JSON.stringify(line.slice(0, 80))}`);
    const raw = Buffer.from(m[2]!, 'base64');
    if (raw.length < 5 || raw.toString('base64') !== m[2]) throw new NoteError(`the signature of ${m[1]} is not canonical base64 of a key ID and a signature`);
    return { name: m[1]!, keyId: raw.subarray(0, 4), signature: raw.subarray(4) };
  });
  return { text, signatures };
}

/**
 * The text of `note` once a signature by `verifier` checks. Signatures by other keys are
 * ignored; one with the verifier's name and ID that fails rejects the note, as does no signature
 * by it at all.
 */
export function openNote(note: string, verifier: NoteVerifier): string {
  const { text, signatures } = splitNote(note);
  const mine = signatures.filter((s) => s.name === verifier.name && s.keyId.equals(verifier.keyId));
  if (!mine.length) {
    const sameName = signatures.find((s) => s.name === verifier.name);
    throw new NoteError(
      sameName
        ? `the note is signed by ${verifier.name} with key ID ${sameName.keyId.toString('hex')}, not with the verifier key's ${verifier.keyId.toString('hex')}`
        : `the note carries no signature by ${verifier.name} (signed by: ${signatures.map((s) => s.name).join(', ')})`,
    );
  }
  const message = Buffer.from(text, 'utf8');
  for (const s of mine) {
    if (!verifier.verify(message, s.signature))
      throw new NoteError(`the signature by ${verifier.name} does not verify: the note was altered or signed by another key`);
  }
  return text;
}

function checkText(text: string): void {
  if (!text.endsWith('\n')) throw new NoteError('a note text must end with a newline');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a note text may hold no control character but newline (signed-note).
  if (/[\u0000-\u0009\u000b-\u001f]/.test(text)) throw new NoteError('a note text must not hold control characters other than newline');
}

/** Split on '+' into at most `count` fields: the last (base64) may hold '+' itself. */
function splitFields(text: string, count: number): string[] {
  const fields = text.split('+');
  return fields.length <= count ? fields : [...fields.slice(0, count - 1), fields.slice(count - 1).join('+')];
}

function decodeKeyMaterial(name: string, id: string, material: string): Buffer {
  if (!isKeyName(name)) throw new NoteError('the key name is empty or holds a space');
  if (!/^[0-9a-f]{8}$/.test(id)) throw new NoteError('the key ID is not 8 lowercase hex digits');
  const raw = Buffer.from(material, 'base64');
  if (raw.toString('base64') !== material || raw.length !== 33) throw new NoteError('the key material is not base64 of a type byte and a 32-byte key');
  if (raw[0] !== ED25519) throw new NoteError(`unsupported key type 0x${raw[0]!.toString(16).padStart(2, '0')} (only Ed25519, 0x01)`);
  return raw.subarray(1);
}

function privateKeyOf(seed: Buffer): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

function publicKeyOf(key: KeyObject): Buffer {
  const der = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return der.subarray(der.length - 32);
}

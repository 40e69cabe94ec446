// C2SP tlog-cosignature v1 (Ed25519, type 0x04): the spec's example line, the byte layout checked
// by hand, round trips, and refusals (wrong key, wrong type, altered checkpoint, altered or future timestamp).
import t from 'tap';
import { createHash, createPublicKey, verify } from 'node:crypto';
import { formatCheckpoint } from '../../../management-api/src/tlog/checkpoint.js';
import {
  addSignatureLine,
  cosignedMessage,
  generateCosignerKey,
  parseCosignatureVerifier,
  parseCosignerKey,
  verifyCosignature,
} from '../../../management-api/src/tlog/cosignature.js';
import { generateSignerKey, NoteError, openNote, parseSignerKey, parseVerifierKey, signNote, splitNote } from '../../../management-api/src/tlog/signed-note.js';

const log = parseSignerKey(generateSignerKey('agentbox/log/0011223344556677'));
const body = formatCheckpoint({ origin: log.name, size: 20852163, root: Buffer.from('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', 'base64') });
const note = signNote(body, log);
const witness = parseCosignerKey(generateCosignerKey('agentbox/witness/test'));
const verifier = parseCosignatureVerifier(witness.verifierKey);

t.test("the spec's example cosignature line: key ID, then the big-endian timestamp of its example message", async (t) => {
  // tlog-cosignature.md: "— witness.example.com/w1 jWbPPwAAAABkGFDL…", over "cosignature/v1\ntime 1679315147\n…".
  const raw = Buffer.from('jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==', 'base64');
  t.equal(raw.length, 4 + 8 + 64, 'key ID, timestamp, Ed25519 signature');
  t.equal(Number(raw.readBigUInt64BE(4)), 1679315147, 'the timestamp of the example message');
  t.equal(
    cosignedMessage('example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n', 1679315147).toString(),
    'cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n',
  );
});

t.test('the line checked by hand: key ID over 0x04, timestamp, signature over the v1 message', async (t) => {
  const line = witness.cosign(body, 1700000000);
  const [, name, b64] = /^— (\S+) (\S+)$/.exec(line)!;
  t.equal(name, 'agentbox/witness/test');
  const raw = Buffer.from(b64!, 'base64');
  // The base64 may hold '+' itself: the key material is everything after the second '+'.
  const [, keyIdHex, material] = /^[^+]+\+([0-9a-f]{8})\+(.+)$/.exec(witness.verifierKey)!;
  const vkey = Buffer.from(material!, 'base64');
  t.equal(vkey[0], 0x04, 'the verifier key carries type 0x04');
  const pub = vkey.subarray(1);
  const id = createHash('sha256')
    .update('agentbox/witness/test\n')
    .update(Buffer.from([0x04]))
    .update(pub)
    .digest()
    .subarray(0, 4);
  t.same(raw.subarray(0, 4), id, 'key ID = SHA-256(name || "\\n" || 0x04 || key)[:4]');
  t.equal(keyIdHex, id.toString('hex'));
  t.equal(raw.readBigUInt64BE(4), 1700000000n);
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pub]), format: 'der', type: 'spki' });
  t.ok(verify(null, Buffer.from(`cosignature/v1\ntime 1700000000\n${body}`), key, raw.subarray(12)), 'Ed25519 over the header, time line and checkpoint text');
});

t.test('round trip: the cosigned note still opens with the log key and verifies with the witness key', async (t) => {
  const cosigned = addSignatureLine(note, witness.cosign(body, 1700000000));
  t.equal(openNote(cosigned, parseVerifierKey(log.verifierKey)), body, "the log's signature is untouched");
  t.same(verifyCosignature(cosigned, verifier), { witness: 'agentbox/witness/test', keyId: verifier.keyId.toString('hex'), timestamp: 1700000000 });
  t.equal(splitNote(cosigned).signatures.length, 2);
  t.equal(parseCosignerKey(generateCosignerKey('x/y')).name, 'x/y');
});

t.test('refusals', async (t) => {
  const cosigned = addSignatureLine(note, witness.cosign(body, 1700000000));
  const other = parseCosignerKey(generateCosignerKey('agentbox/witness/test'));
  t.throws(
    () => verifyCosignature(cosigned, parseCosignatureVerifier(other.verifierKey)),
    /no cosignature by the witness/,
    'another key of the same name: its key ID differs',
  );
  // Another key's signature under the right name and key ID: the signature itself must fail.
  const forged = other
    .cosign(body, 1700000000)
    .replace(/ (\S+)$/, (_, b64: string) => ` ${Buffer.concat([verifier.keyId, Buffer.from(b64, 'base64').subarray(4)]).toString('base64')}`);
  t.throws(
    () => verifyCosignature(addSignatureLine(note, forged), verifier),
    /does not verify/,
    'a cosignature by another key under the right name and key ID',
  );
  t.throws(() => verifyCosignature(cosigned.replace('\n20852163\n', '\n20852164\n'), verifier), /does not verify/, 'an altered checkpoint');
  // The timestamp is signed: moving it breaks the signature.
  const moved = cosigned.replace(/— agentbox\/witness\/test (\S+)\n$/, (_, b64: string) => {
    const raw = Buffer.from(b64, 'base64');
    raw.writeBigUInt64BE(1700000001n, 4);
    return `— agentbox/witness/test ${raw.toString('base64')}\n`;
  });
  t.throws(() => verifyCosignature(moved, verifier), /does not verify/, 'an altered timestamp');
  t.throws(
    () => verifyCosignature(addSignatureLine(note, witness.cosign(body, 4102444800)), verifier, 1700000100),
    /in the future/,
    'a timestamp in the future',
  );
  t.throws(() => witness.cosign(body, -1), NoteError, 'a negative timestamp');
  // Type confusion: a log key is not a witness key, and a log signature is not a cosignature.
  t.throws(() => parseCosignatureVerifier(log.verifierKey), /not a cosignature\/v1 key \(0x04\): this is a log key/, 'a 0x01 key as a witness key');
  t.throws(() => parseVerifierKey(witness.verifierKey), /unsupported key type 0x04/, 'a witness key as a log key');
  const logAsWitness = signNote(body, { ...log, keyId: verifier.keyId, name: verifier.name });
  t.throws(() => verifyCosignature(logAsWitness, verifier), /does not verify/, 'a plain signature (no timestamp) under the witness name and ID');
  t.throws(() => verifyCosignature(note, verifier), /no cosignature/, 'a note without a cosignature');
  t.throws(
    () => parseCosignatureVerifier(witness.verifierKey.replace(/\+[0-9a-f]{8}\+/, '+00000000+')),
    /ID/,
    'a verifier key whose ID does not match its key',
  );
});

// C2SP signed notes and tlog checkpoints: Go's sumdb/note vector, round trips, and refusals.
import t from 'tap';
import { formatCheckpoint, parseCheckpoint, CheckpointError } from '../../../management-api/src/tlog/checkpoint.js';
import { generateSignerKey, NoteError, openNote, parseSignerKey, parseVerifierKey, signNote } from '../../../management-api/src/tlog/signed-note.js';

// The example key and note of golang.org/x/mod/sumdb/note.
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const NOTE = `${TEXT}\n— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

t.test('the reference note: same signature, same verifier key, opens', async (t) => {
  const signer = parseSignerKey(SKEY);
  t.equal(signer.verifierKey, VKEY, 'the verifier key derived from the signer key');
  t.equal(signNote(TEXT, signer), NOTE, 'Ed25519 is deterministic: the same note byte for byte');
  t.equal(openNote(NOTE, parseVerifierKey(VKEY)), TEXT);
});

t.test('round trip with a fresh key, and the refusals', async (t) => {
  const signer = parseSignerKey(generateSignerKey('agentbox/test-log'));
  const verifier = parseVerifierKey(signer.verifierKey);
  const body = formatCheckpoint({ origin: 'agentbox/test-log', size: 42, root: Buffer.alloc(32, 7) });
  const note = signNote(body, signer);
  t.same(parseCheckpoint(openNote(note, verifier)), { origin: 'agentbox/test-log', size: 42, root: Buffer.alloc(32, 7) });
  t.throws(() => openNote(note.replace('\n42\n', '\n43\n'), verifier), NoteError, 'an altered body');
  const other = parseSignerKey(generateSignerKey('agentbox/test-log'));
  t.throws(() => openNote(note, parseVerifierKey(other.verifierKey)), /key ID/, 'another key of the same name: its ID differs');
  // The same name and ID as the real key but other key material: the signature must fail to verify.
  const [name, id] = signer.verifierKey.split('+');
  const forgedId = Buffer.from(id!, 'hex');
  const noteWithForgedId = signNote(body, { ...other, keyId: forgedId, name: name! });
  t.throws(() => openNote(noteWithForgedId, verifier), /does not verify/, 'a signature by another key under the right name and key ID');
  t.throws(() => openNote(note, parseVerifierKey(parseSignerKey(generateSignerKey('someone/else')).verifierKey)), /no signature by someone\/else/);
  t.throws(() => openNote(note.replace(/ (\S+)\n$/, ' AAAA$1\n'), verifier), NoteError, 'a damaged signature line');
  t.throws(() => parseVerifierKey(signer.verifierKey.replace(/\+([0-9a-f]{8})\+/, '+00000000+')), /ID/, 'a verifier key whose hash does not match its key');
  t.throws(() => parseVerifierKey('name+12345678'), NoteError);
  t.throws(() => signNote('no final newline', signer), NoteError);
  // Other keys' signatures are ignored as long as one by ours verifies.
  const both = signNote(body, signer).replace(/\n$/, `\n${signNote(body, other).split('\n\n')[1]!}`);
  t.equal(openNote(both, verifier), body);
});

t.test('checkpoint bodies', async (t) => {
  const root = Buffer.alloc(32, 1);
  const text = formatCheckpoint({ origin: 'example.com/log', size: 10, root, extensions: ['ext one'] });
  t.equal(text, `example.com/log\n10\n${root.toString('base64')}\next one\n`);
  t.same(parseCheckpoint(text).extensions, ['ext one']);
  t.throws(() => parseCheckpoint('example.com/log\n010\nAAAA\n'), CheckpointError);
  t.throws(() => parseCheckpoint(`example.com/log\n10\n${Buffer.alloc(31).toString('base64')}\n`), /root hash/);
  t.throws(() => parseCheckpoint('example.com/log\n10\n'), /at least 3 lines/);
  t.throws(() => formatCheckpoint({ origin: 'has space', size: 1, root }), CheckpointError);
});

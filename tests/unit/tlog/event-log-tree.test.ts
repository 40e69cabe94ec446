// The local event log's Merkle tree on real files: checkpoints at open and at close, proofs that
// verify against them, the tree repaired after a crash (shorter, longer, damaged), and a log cut
// or rewritten below its last checkpoint refused at open.
import t from 'tap';
import { appendFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LocalJsonlEvents } from '../../../management-api/src/adapters/events/local-jsonl.js';
import { decodeLine, encodeLine, toStored } from '../../../management-api/src/adapters/events/hash-chain.js';
import { parseCheckpoint } from '../../../management-api/src/tlog/checkpoint.js';
import { openNote, parseVerifierKey } from '../../../management-api/src/tlog/signed-note.js';
import { verifyConsistency, verifyInclusion } from '../../../management-api/src/tlog/proof-verify.js';
import { leafHash } from '../../../management-api/src/tlog/rfc6962.js';

const root = mkdtempSync(path.join(tmpdir(), 'agentbox-tlog-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const keyFile = path.join(root, 'secrets/event-log.key');

function adapter(dir: string, maxFileBytes = 4096): LocalJsonlEvents {
  return new LocalJsonlEvents({ dir, maxFileBytes, transparency: { keyFile, checkpointIntervalMs: 3_600_000 } });
}
async function opened(dir: string): Promise<LocalJsonlEvents> {
  const a = adapter(dir);
  await a.connect(AbortSignal.timeout(10_000));
  return a;
}
async function append(a: LocalJsonlEvents, from: number, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, (_, i) => a.append([{ kind: 'test.tree', source: 'tlog-test', data: { i: from + i } }])));
}
const b64 = (s: string): Buffer => Buffer.from(s, 'base64');
const verifierKey = (dir: string): string => readFileSync(path.join(dir, 'tlog/verifier-key'), 'utf8').trim();
const latestOnDisk = (dir: string) => parseCheckpoint(openNote(readFileSync(path.join(dir, 'tlog/checkpoint'), 'utf8'), parseVerifierKey(verifierKey(dir))));
/** The log's lines as stored, in order across segments. */
const logLines = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl') && f.startsWith('events-'))
    .sort()
    .flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n').filter(Boolean));

t.test('checkpoints at open and at close; proofs verify against them; the key is private', async (t) => {
  const dir = path.join(root, 'a');
  const a = await opened(dir);
  const first = await a.checkpoint();
  t.equal(first.size, 0, 'an empty log gets a checkpoint at open');
  const key = await a.logKey();
  t.match(key.origin, /^agentbox\/log\/[0-9a-f]{16}$/);
  t.equal(key.verifierKey, verifierKey(dir), 'the published verifier key file');
  t.equal(statSync(keyFile).mode & 0o777, 0o600, 'the signing key is 0600');
  t.notMatch(readFileSync(path.join(dir, 'tlog/checkpoint'), 'utf8'), /PRIVATE/);
  await append(a, 0, 150);
  t.equal((await a.checkpoint()).size, 0, 'no checkpoint before the interval');
  await a.close();
  const atClose = latestOnDisk(dir);
  t.equal(atClose.size, 150, 'a checkpoint is signed at close');
  t.equal(readFileSync(path.join(dir, 'tlog/checkpoints.jsonl'), 'utf8').trim().split('\n').length, 2, 'both kept in the history');

  const b = await opened(dir);
  const cp = await b.checkpoint();
  t.equal(cp.size, 150);
  t.ok(parseCheckpoint(openNote(cp.note, parseVerifierKey(key.verifierKey))).root.equals(atClose.root));
  const lines = logLines(dir);
  t.equal(lines.length, 150);
  for (const index of [0, 1, 63, 64, 100, 149]) {
    const proof = await b.inclusionProof(index);
    t.ok(b64(proof.leafHash).equals(leafHash(Buffer.from(lines[index]!))), `leaf ${index} is the stored line's hash`);
    verifyInclusion(index, 150, b64(proof.leafHash), proof.path.map(b64), atClose.root);
  }
  await append(b, 150, 50);
  await b.close();
  const later = latestOnDisk(dir);
  t.equal(later.size, 200);
  const c = await opened(dir);
  const consistency = await c.consistencyProof(150, 200);
  verifyConsistency(150, 200, atClose.root, later.root, consistency.path.map(b64));
  await t.rejects(c.inclusionProof(200), { statusCode: 400, message: /not in a tree of 200/ }, 'an index past the checkpoint is a 400');
  await t.rejects(c.consistencyProof(10, 300), { statusCode: 400, message: /past the tree/ });
  await c.close();
});

t.test('the tree is repaired after a crash: shorter, longer or damaged past the checkpoint', async (t) => {
  const dir = path.join(root, 'a');
  const tree = path.join(dir, 'tlog/tree.hashes');
  const signed = latestOnDisk(dir);

  // Lines written while the tree was not kept (a crash between the lines and their hashes).
  const plain = new LocalJsonlEvents({ dir, maxFileBytes: 4096 });
  await plain.connect(AbortSignal.timeout(10_000));
  await append(plain, 200, 30);
  await plain.close();
  truncateSync(tree, statSync(tree).size - 32 * 5);
  const a = await opened(dir);
  t.equal((await a.checkpoint()).size, 230, 'the missing entries were hashed from the log and signed');
  await a.close();
  const after = latestOnDisk(dir);
  const b = await opened(dir);
  verifyConsistency(signed.size, 230, signed.root, after.root, (await b.consistencyProof(signed.size, 230)).path.map(b64));
  await b.close();

  // Hashes for entries that never were (a longer file), and garbage in the untrusted tail.
  appendFileSync(tree, Buffer.alloc(32 * 7, 0xab));
  const c = await opened(dir);
  const lines = logLines(dir);
  const proof = await c.inclusionProof(229);
  t.ok(b64(proof.leafHash).equals(leafHash(Buffer.from(lines[229]!))), 'the hashes past the log were dropped');
  await c.close();

  // A tree that no longer gives the signed root is rebuilt from the log.
  const bytes = readFileSync(tree);
  bytes[40] = bytes[40]! ^ 0xff;
  writeFileSync(tree, bytes);
  const d = await opened(dir);
  verifyInclusion(3, 230, leafHash(Buffer.from(lines[3]!)), (await d.inclusionProof(3)).path.map(b64), after.root);
  await d.close();
  rmSync(tree);
  const e = await opened(dir);
  verifyInclusion(7, 230, leafHash(Buffer.from(lines[7]!)), (await e.inclusionProof(7)).path.map(b64), after.root);
  await e.close();
});

t.test('a log cut or rewritten below its last checkpoint is refused at open', async (t) => {
  const dir = path.join(root, 'b');
  const a = await opened(dir);
  await append(a, 0, 40);
  await a.close();
  const segments = readdirSync(dir)
    .filter((f) => f.startsWith('events-'))
    .sort();
  const last = path.join(dir, segments[segments.length - 1]!);
  const original = readFileSync(last, 'utf8');

  const kept = original.split('\n').filter(Boolean);
  writeFileSync(last, `${kept.slice(0, -3).join('\n')}\n`);
  await t.rejects(opened(dir), /holds 37 entries but its last signed checkpoint covers 40: entries were removed/);

  // The last signed line rewritten (with a valid hash of its own, so the chain check at open passes).
  const lastEvent = decodeLine(kept[kept.length - 1]!);
  const { line: forged } = encodeLine(lastEvent.prev, { ...toStored(lastEvent), data: { i: 390 } });
  writeFileSync(last, `${[...kept.slice(0, -1), forged.trimEnd()].join('\n')}\n`);
  await t.rejects(opened(dir), /entry 39 \(seq 40\) is not the one the last signed checkpoint covers/);
  writeFileSync(last, original);
  const b = await opened(dir);
  t.equal((await b.checkpoint()).size, 40, 'the restored log opens');
  await b.close();
});

// The witness's judgement of an offered checkpoint against the last one cosigned: real signed notes
// over real RFC 6962 trees; grow, same size and root, same size another root, shrink, bad proof,
// another origin, another key, and a flagged member.
import t from 'tap';
import { formatCheckpoint } from '../../../management-api/src/tlog/checkpoint.js';
import { leafHash, nodeHash, EMPTY_ROOT } from '../../../management-api/src/tlog/rfc6962.js';
import { generateSignerKey, parseSignerKey, signNote, type NoteSigner } from '../../../management-api/src/tlog/signed-note.js';
import { judgeOffer, type WitnessOffer } from '../../../management-api/src/mesh/host/witness-decision.js';
import type { WitnessRecord } from '../../../management-api/src/mesh/host/registry.js';

// The RFC's recursive definitions, spelled out: MTH and the consistency proof (PROOF, SUBPROOF).
const k = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return EMPTY_ROOT;
  if (d.length === 1) return d[0]!;
  return nodeHash(mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

const leaves = (n: number, tag = 'entry'): Buffer[] => Array.from({ length: n }, (_, i) => leafHash(Buffer.from(`${tag} ${i}`)));
const log = parseSignerKey(generateSignerKey('agentbox/log/00112233aabbccdd'));
const note = (size: number, root: Buffer, signer: NoteSigner = log, origin = signer.name): string => signNote(formatCheckpoint({ origin, size, root }), signer);
const b64 = (h: Buffer): string => h.toString('base64');

/** The record after `size` entries of `tree` were cosigned. */
function cosignedAt(tree: Buffer[], size: number): WitnessRecord {
  return {
    logKey: log.verifierKey,
    cosigned: { origin: log.name, size, root: b64(mth(tree.slice(0, size))), note: note(size, mth(tree.slice(0, size))), at: '2026-01-01T00:00:00.000Z' },
    flag: null,
  };
}
const offerOf = (tree: Buffer[], from?: number): WitnessOffer => ({
  checkpoint: note(tree.length, mth(tree)),
  verifierKey: log.verifierKey,
  ...(from !== undefined ? { proof: { from, path: subproof(from, tree, true).map(b64) } } : {}),
});

t.test('a first checkpoint is cosigned (trust on first use), the key from the offer or the registration', async (t) => {
  const tree = leaves(7);
  t.match(judgeOffer(undefined, offerOf(tree)), { outcome: 'cosign', logKey: log.verifierKey, checkpoint: { size: 7 } });
  t.match(
    judgeOffer({ logKey: log.verifierKey, cosigned: null, flag: null }, { checkpoint: note(7, mth(tree)) }),
    { outcome: 'cosign' },
    'the key pinned at registration',
  );
  t.match(judgeOffer(undefined, { checkpoint: note(7, mth(tree)) }), { outcome: 'malformed', message: /no verifier key/ }, 'no key at all');
});

t.test('grow: a consistency proof from the last size cosigned is checked', async (t) => {
  const tree = leaves(23);
  for (const from of [1, 4, 5, 16, 22]) {
    t.match(judgeOffer(cosignedAt(tree, from), offerOf(tree, from)), { outcome: 'cosign', checkpoint: { size: 23 } }, `from ${from} to 23`);
  }
  t.match(
    judgeOffer(cosignedAt(tree, 5), offerOf(tree)),
    { outcome: 'proof-needed', from: 5 },
    'no proof: asked for one from the size cosigned, nothing flagged',
  );
  t.match(judgeOffer(cosignedAt(tree, 5), offerOf(tree, 4)), { outcome: 'proof-needed', from: 5 }, 'a proof from another size: asked again');
  t.match(judgeOffer(cosignedAt(tree, 0), offerOf(tree)), { outcome: 'cosign' }, 'from the empty tree no proof is needed');
});

t.test('same size: the same root is cosigned again, another root is a fork', async (t) => {
  const tree = leaves(9);
  t.match(judgeOffer(cosignedAt(tree, 9), offerOf(tree)), { outcome: 'cosign' });
  const rewritten = [...tree];
  rewritten[3] = leafHash(Buffer.from('rewritten'));
  t.match(judgeOffer(cosignedAt(tree, 9), offerOf(rewritten)), { outcome: 'refuse', reason: 'fork', message: /two roots for size 9/ });
});

t.test('shrink, a rewritten log growing past its cosigned size, a proof that does not verify', async (t) => {
  const tree = leaves(20);
  t.match(judgeOffer(cosignedAt(tree, 20), offerOf(tree.slice(0, 12))), {
    outcome: 'refuse',
    reason: 'shrunk',
    message: /size 12, but 20 entries were cosigned/,
  });
  // The member rewrote entry 2 and appended more: the proof it can build is from its own tree.
  const rewritten = [...tree, ...leaves(5, 'more')];
  rewritten[2] = leafHash(Buffer.from('rewritten'));
  t.match(judgeOffer(cosignedAt(tree, 20), offerOf(rewritten, 20)), { outcome: 'refuse', reason: 'inconsistent', message: /not consistent with size 20/ });
  // The true proof of the real tree does not rescue a rewritten root.
  const honest = [...tree, ...leaves(5, 'more')];
  const forged = { ...offerOf(rewritten), proof: { from: 20, path: subproof(20, honest, true).map(b64) } };
  t.match(judgeOffer(cosignedAt(tree, 20), forged), { outcome: 'refuse', reason: 'inconsistent' }, "another tree's proof");
  const damaged = offerOf(honest, 20);
  damaged.proof!.path[0] = b64(leafHash(Buffer.from('x')));
  t.match(judgeOffer(cosignedAt(tree, 20), damaged), { outcome: 'refuse', reason: 'inconsistent' }, 'a damaged hash');
  const short = offerOf(honest, 20);
  short.proof!.path.pop();
  t.match(judgeOffer(cosignedAt(tree, 20), short), { outcome: 'refuse', reason: 'inconsistent', message: /shorter/ }, 'a proof one hash short');
  t.match(
    judgeOffer(cosignedAt(tree, 20), { ...offerOf(honest), proof: { from: 20, path: ['not base64'] } }),
    { outcome: 'malformed' },
    'a proof that is not hashes',
  );
  t.match(judgeOffer(cosignedAt(tree, 20), offerOf(honest, 20)), { outcome: 'cosign' }, 'the honest proof passes');
});

t.test('another origin, another key, a bad signature, a flagged member', async (t) => {
  const tree = leaves(6);
  const record = cosignedAt(tree, 4);
  const otherLog = parseSignerKey(generateSignerKey('agentbox/log/ffffffffffffffff'));
  t.match(
    judgeOffer(record, {
      checkpoint: note(6, mth(tree), otherLog),
      verifierKey: otherLog.verifierKey,
      proof: { from: 4, path: subproof(4, tree, true).map(b64) },
    }),
    { outcome: 'refuse', reason: 'log-key-changed' },
    'a new log key after a cosignature',
  );
  const sameName = parseSignerKey(generateSignerKey(log.name));
  t.match(
    judgeOffer(record, { checkpoint: note(6, mth(tree), sameName), proof: { from: 4, path: subproof(4, tree, true).map(b64) } }),
    { outcome: 'refuse', reason: 'bad-signature' },
    'signed by another key of the same name',
  );
  t.match(
    judgeOffer(record, { checkpoint: note(6, mth(tree), log, 'agentbox/log/elsewhere') }),
    { outcome: 'refuse', reason: 'origin-changed' },
    "an origin that is not the key's name",
  );
  const altered = offerOf(tree, 4);
  altered.checkpoint = altered.checkpoint.replace('\n6\n', '\n7\n');
  t.match(judgeOffer(record, altered), { outcome: 'refuse', reason: 'bad-signature' }, 'an altered note');
  const flagged: WitnessRecord = { ...record, flag: { reason: 'fork', detail: 'two roots', at: '2026-01-02T00:00:00.000Z' } };
  t.match(
    judgeOffer(flagged, offerOf(tree, 4)),
    { outcome: 'flagged', message: /flagged \(fork: two roots\).*operator/ },
    'a flagged member is refused even a consistent checkpoint',
  );
  t.match(
    judgeOffer({ logKey: otherLog.verifierKey, cosigned: null, flag: null }, offerOf(tree)),
    { outcome: 'cosign', logKey: log.verifierKey },
    'before any cosignature a new key replaces the pinned one',
  );
});

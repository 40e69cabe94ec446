// RFC 6962 trees: the CT test vectors, and every inclusion and consistency proof up to 64 leaves
// checked against a naive implementation written here from the RFC's recursive definitions.
import t from 'tap';
import { createHash } from 'node:crypto';
import { EMPTY_ROOT, leafHash } from '../../../management-api/src/tlog/rfc6962.js';
import { proveConsistency, proveInclusion, treeRoot, type ReadNodes } from '../../../management-api/src/tlog/prove.js';
import { ProofError, verifyConsistency, verifyInclusion } from '../../../management-api/src/tlog/proof-verify.js';
import { hashesToStore, rootFromFrontier, sizeForStoredCount, storedHashCount, storedHashIndex } from '../../../management-api/src/tlog/stored-hashes.js';
import { ProofRangeError } from '../../../management-api/src/tlog/proof-plan.js';

// The naive side: SHA-256 with the RFC's prefixes, spelled out again.
const sha = (...parts: Buffer[]): Buffer => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const naiveLeaf = (entry: Buffer): Buffer => sha(Buffer.from([0]), entry);
const naiveNode = (l: Buffer, r: Buffer): Buffer => sha(Buffer.from([1]), l, r);
const k = (n: number): number => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return d[0]!;
  return naiveNode(mth(d.slice(0, k(d.length))), mth(d.slice(k(d.length))));
}
function path(m: number, d: Buffer[]): Buffer[] {
  if (d.length <= 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}
function subproof(m: number, d: Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = k(d.length);
  return m <= s ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))] : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}

const entries = Array.from({ length: 64 }, (_, i) => Buffer.from(`entry ${i}: ${'x'.repeat(i)}`));
const leaves = entries.map(naiveLeaf);
/** The tree as the code under test reads it: complete subtrees computed by the naive MTH. */
const naiveReader: ReadNodes = async (nodes) => nodes.map(({ level, index }) => mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)));
const flip = (b: Buffer): Buffer => Buffer.from(b.map((x, i) => (i === 7 ? x ^ 1 : x)));

t.test('the RFC 6962 test vectors of Certificate Transparency', async (t) => {
  const data = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'].map((h) => Buffer.from(h, 'hex'));
  const roots = [
    '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
    'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
    'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
    'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
    '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
    'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
    '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
  ];
  const vl = data.map((d) => leafHash(d));
  const read: ReadNodes = async (nodes) => nodes.map(({ level, index }) => mth(vl.slice(index * 2 ** level, (index + 1) * 2 ** level)));
  t.equal(EMPTY_ROOT.toString('hex'), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'the empty root is SHA-256 of nothing');
  for (let n = 1; n <= 8; n++) t.equal((await treeRoot(n, read)).toString('hex'), roots[n - 1], `root of ${n}`);
  const inc = await proveInclusion(5, 8, read);
  t.same(
    inc.path.map((h) => h.toString('hex')),
    [
      'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  );
  const cons = await proveConsistency(6, 8, read);
  t.same(
    cons.path.map((h) => h.toString('hex')),
    [
      '0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a',
      'ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0',
      'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
    ],
  );
  const cons25 = await proveConsistency(2, 5, read);
  t.same(
    cons25.path.map((h) => h.toString('hex')),
    ['5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e', 'bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b'],
  );
  t.throws(
    () => verifyConsistency(6, 8, Buffer.from(roots[4]!, 'hex'), Buffer.from(roots[7]!, 'hex'), cons.path),
    ProofError,
    'the proof does not hold for another old root',
  );
});

t.test('every inclusion proof up to 64 leaves equals the naive PATH and verifies; altered ones do not', async (t) => {
  let checked = 0;
  for (let n = 1; n <= 64; n++) {
    const root = mth(leaves.slice(0, n));
    t.ok((await treeRoot(n, naiveReader)).equals(root), `root of ${n}`);
    for (let m = 0; m < n; m++) {
      const proof = await proveInclusion(m, n, naiveReader);
      const want = path(m, leaves.slice(0, n));
      if (!proof.leafHash.equals(leaves[m]!) || proof.path.length !== want.length || proof.path.some((h, i) => !h.equals(want[i]!))) {
        t.fail(`inclusion of ${m} in ${n} differs from PATH`);
        continue;
      }
      verifyInclusion(m, n, proof.leafHash, proof.path, root);
      if (want.length) {
        t.throws(() => verifyInclusion(m, n, proof.leafHash, [flip(proof.path[0]!), ...proof.path.slice(1)], root), ProofError);
        t.throws(() => verifyInclusion(m, n, proof.leafHash, proof.path.slice(1), root), ProofError);
      }
      t.throws(() => verifyInclusion(m, n, flip(proof.leafHash), proof.path, root), ProofError);
      if (n > 1) t.throws(() => verifyInclusion((m + 1) % n, n, proof.leafHash, proof.path, root), ProofError, `index ${m} proof refused for another index`);
      checked++;
    }
  }
  t.equal(checked, (64 * 65) / 2);
});

t.test('every consistency proof up to 64 leaves equals the naive PROOF and verifies; altered ones do not', async (t) => {
  let checked = 0;
  for (let n = 1; n <= 64; n++) {
    const newRoot = mth(leaves.slice(0, n));
    for (let m = 1; m <= n; m++) {
      const oldRoot = mth(leaves.slice(0, m));
      const proof = await proveConsistency(m, n, naiveReader);
      const want = m === n ? [] : subproof(m, leaves.slice(0, n), true);
      if (proof.path.length !== want.length || proof.path.some((h, i) => !h.equals(want[i]!))) {
        t.fail(`consistency ${m}→${n} differs from PROOF`);
        continue;
      }
      verifyConsistency(m, n, oldRoot, newRoot, proof.path);
      t.throws(() => verifyConsistency(m, n, flip(oldRoot), newRoot, proof.path), ProofError);
      t.throws(() => verifyConsistency(m, n, oldRoot, flip(newRoot), proof.path), ProofError);
      if (want.length)
        t.throws(() => verifyConsistency(m, n, oldRoot, newRoot, [...proof.path.slice(0, -1), flip(proof.path[proof.path.length - 1]!)]), ProofError);
      checked++;
    }
  }
  t.equal(checked, (64 * 65) / 2);
  // A rewritten entry: the old tree is not a prefix of the new one, and no proof says it is.
  const rewritten = [...leaves.slice(0, 40)];
  rewritten[3] = naiveLeaf(Buffer.from('rewritten'));
  const forgedRead: ReadNodes = async (nodes) => nodes.map(({ level, index }) => mth(rewritten.slice(index * 2 ** level, (index + 1) * 2 ** level)));
  const forged = await proveConsistency(10, 40, forgedRead);
  t.throws(
    () => verifyConsistency(10, 40, mth(leaves.slice(0, 10)), mth(rewritten), forged.path),
    ProofError,
    'history rewritten below the old size is caught',
  );
});

t.test('proof bounds are refused with a reason', async (t) => {
  await t.rejects(proveInclusion(5, 5, naiveReader), ProofRangeError);
  await t.rejects(proveConsistency(0, 5, naiveReader), ProofRangeError);
  await t.rejects(proveConsistency(6, 5, naiveReader), ProofRangeError);
});

t.test('the stored layout: every complete subtree at its index, counts and frontier roots', async (t) => {
  const stored: Buffer[] = [];
  const frontier: Buffer[] = [];
  for (let n = 0; n < 64; n++) {
    stored.push(...hashesToStore(n, leaves[n]!, frontier));
    t.equal(stored.length, storedHashCount(n + 1), `count after ${n + 1}`);
    t.equal(sizeForStoredCount(stored.length), n + 1);
    if (stored.length > storedHashCount(n) + 1) t.equal(sizeForStoredCount(stored.length - 1), n, 'a partly written leaf group counts as not written');
    t.ok(rootFromFrontier(n + 1, frontier).equals(mth(leaves.slice(0, n + 1))), `frontier root of ${n + 1}`);
  }
  for (let level = 0; level <= 6; level++) {
    for (let index = 0; (index + 1) * 2 ** level <= 64; index++) {
      const at = stored[storedHashIndex(level, index)];
      if (!at?.equals(mth(leaves.slice(index * 2 ** level, (index + 1) * 2 ** level)))) t.fail(`subtree ${level}/${index} is not at its index`);
    }
  }
  t.equal(storedHashCount(1_000_000), 2 * 1_000_000 - 7, '2n − popcount(n)');
});

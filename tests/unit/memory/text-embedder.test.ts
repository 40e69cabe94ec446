// The built-in text embedder: deterministic, normalised, lexical; and the shared memory input rules.
import t from 'tap';
import { embedText, fnv1a, textFeatures } from '../../../management-api/src/adapters/memory/text-embedder.js';
import { checkVector, decodeCursor, encodeCursor, pageLimit } from '../../../management-api/src/adapters/memory/memory-input.js';
import { hasIterativeScan } from '../../../management-api/src/adapters/memory/pg-schema.js';
import { describeTarget } from '../../../management-api/src/adapters/memory/pg-connection.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0);

t.test('the same text always gives the same unit vector', async (t) => {
  const a = embedText('Rotate the signing keys', 384);
  t.same(Array.from(a), Array.from(embedText('Rotate the signing keys', 384)));
  t.ok(Math.abs(dot(a, a) - 1) < 1e-6, 'unit length');
  t.equal(fnv1a('a'), 0xe40c292c, 'FNV-1a 32 of "a" (the published test vector)');
});

t.test('features are words and trigrams of #word#, case- and width-folded', async (t) => {
  const f = textFeatures('Ｋeys keys!');
  t.equal(f.get('w:keys'), 2, 'NFKC folds the full-width letter, lower case folds K');
  t.ok(f.has('c:#ke') && f.has('c:ys#'), 'boundary trigrams');
  t.equal(textFeatures('...').size, 0);
});

t.test('similarity follows shared words and spellings, not meaning', async (t) => {
  const q = embedText('deploy the api to staging', 384);
  t.ok(dot(q, embedText('deployed the API on staging', 384)) > 0.5, 'inflection and case');
  t.ok(dot(q, embedText('the cat sat on the mat', 384)) < 0.3, 'unrelated words');
  t.ok(dot(embedText('car', 384), embedText('automobile', 384)) < 0.2, 'synonyms are not related (a documented limit)');
});

t.test('text with nothing to embed is refused; a tiny dimension still gives a non-zero vector', async (t) => {
  t.throws(() => embedText('?!', 8), { code: 'ABX_ERR_VALIDATION' });
  const tiny = embedText('a b c d e f g h', 2);
  t.ok(tiny.some((x) => x !== 0));
});

t.test('input rules', async (t) => {
  t.throws(() => checkVector('nope' as unknown as number[], 3), { code: 'ABX_ERR_VALIDATION' });
  t.throws(() => checkVector([1, Infinity, 0], 3), { message: /component 1/ });
  t.same(Array.from(checkVector([1, 2, 3], 3)), [1, 2, 3]);
  t.equal(decodeCursor(encodeCursor(42)), 42);
  t.equal(decodeCursor(undefined), 0);
  t.throws(() => decodeCursor(Buffer.from('m1:x').toString('base64url')), { code: 'ABX_ERR_VALIDATION' });
  t.equal(pageLimit(undefined), 50);
  t.equal(pageLimit(10_000), 500);
  t.throws(() => pageLimit(0));
  t.equal(hasIterativeScan('0.8.7'), true);
  t.equal(hasIterativeScan('0.7.4'), false);
  t.equal(describeTarget('postgres://u:secret@db.example:6543/mem'), 'db.example:6543/mem');
  t.equal(describeTarget('host=x password=y'), 'the configured Postgres server');
});

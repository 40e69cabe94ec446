// The memory contract: what every memory implementation does, exercised through the resolver's dispatching operations.
import type tap from 'tap';
import { embedText } from '../../management-api/src/adapters/memory/text-embedder.js';
import type { SlotHarness } from './pods-harness.js';
import { expectRefusedAsOff } from './support/off-refusals.js';

type Test = Parameters<Parameters<typeof tap.test>[0]>[0];
type Ops = SlotHarness<'memory'>['ops'];

/** Names of the contract's cases; a skip list maps some of them to the reason they do not apply. */
export type MemoryCase = keyof typeof cases;

/** How the suite is run: the slot's dimension (from the manifest) and cases skipped, each with its reason. */
export interface MemoryContractOptions {
  dimension: number;
  skip?: Partial<Record<MemoryCase, string>>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A deterministic pseudo-random unit-free vector (seeded, so failures reproduce). */
export function seededVector(seed: number, dimension: number): number[] {
  let s = (seed * 2654435761) >>> 0 || 1;
  return Array.from({ length: dimension }, () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296 - 0.5;
  });
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

async function allPages(ops: Ops, namespace: string, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await ops.list(namespace, { limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.items.map((m) => m.id));
    cursor = page.nextCursor;
  } while (cursor && pages.length < 100);
  return pages;
}

const cases = {
  async 'store then retrieve returns the record as stored'(t: Test, ops: Ops, dim: number) {
    const vector = seededVector(1, dim);
    const metadata = { source: 'contract', tags: ['a', 'b'], nested: { n: 1, ok: true } };
    t.same(await ops.store('c-retrieve', { id: 'note-1', text: 'the first note', metadata, vector }), { id: 'note-1' });
    const record = await ops.retrieve('c-retrieve', 'note-1');
    t.match(record, { id: 'note-1', namespace: 'c-retrieve', text: 'the first note' });
    t.same(record.metadata, metadata, 'metadata round-trips as JSON');
    t.match(record.createdAt, ISO);
    t.ok(record.vector instanceof Float32Array, 'the vector is a Float32Array');
    t.equal(record.vector.length, dim);
    t.ok(
      record.vector.every((x, i) => Math.abs(x - vector[i]!) < 1e-6),
      'the vector is the one stored',
    );
    const fresh = await ops.store('c-retrieve', { text: 'no id given' });
    t.match(fresh.id, /^[0-9a-f-]{36}$/, 'an id is assigned when none is given');
    t.not(fresh.id, 'note-1');
  },

  async 'text-only calls use the built-in embedder'(t: Test, ops: Ops, dim: number) {
    const texts = ['deploy the api to staging', 'the cat sat on the mat', 'postgres connection pool exhausted'];
    for (const [i, text] of texts.entries()) await ops.store('c-text', { id: `t${i}`, text });
    const stored = await ops.retrieve('c-text', 't2');
    const expected = embedText(texts[2]!, dim);
    t.ok(
      stored.vector.every((x, i) => Math.abs(x - expected[i]!) < 1e-6),
      'the stored vector is the embedder output',
    );
    const hits = await ops.search('c-text', { text: 'postgres connection pool exhausted', k: 3 });
    t.equal(hits[0]?.id, 't2', 'the identical text ranks first');
    t.ok(Math.abs(hits[0]!.score - 1) < 1e-4, 'with cosine similarity 1');
    const near = await ops.search('c-text', { text: 'deploying the API', k: 1 });
    t.equal(near[0]?.id, 't0', 'shared words and spellings rank a paraphrase first');
  },

  async 'search ranks the exact match first and returns the exact top-k, best first'(t: Test, ops: Ops, dim: number) {
    const vectors = Array.from({ length: 40 }, (_, i) => seededVector(100 + i, dim));
    for (const [i, vector] of vectors.entries()) await ops.store('c-rank', { id: `v${i}`, text: `vector ${i}`, metadata: { i }, vector });
    const query = vectors[17]!;
    const hits = await ops.search('c-rank', { vector: query, k: 5 });
    t.equal(hits.length, 5, 'k hits');
    t.equal(hits[0]?.id, 'v17', 'the stored vector itself first');
    t.ok(Math.abs(hits[0]!.score - 1) < 1e-4);
    t.match(hits[0], { text: 'vector 17', metadata: { i: 17 } }, 'hits carry text and metadata');
    const exact = vectors
      .map((v, i) => ({ id: `v${i}`, score: cosine(query, v) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 5);
    t.same(
      hits.map((h) => h.id),
      exact.map((e) => e.id),
      'the same top-5 as brute force',
    );
    hits.forEach((h, i) => {
      t.ok(Math.abs(h.score - exact[i]!.score) < 1e-4, `score ${i} is the cosine similarity`);
    });
    const all = await ops.search('c-rank', { vector: Float32Array.from(seededVector(999, dim)), k: 100 });
    t.equal(all.length, 40, 'k larger than the namespace returns everything');
    t.ok(
      all.every((h, i) => i === 0 || all[i - 1]!.score >= h.score),
      'best first',
    );
  },

  async 'namespaces are isolated'(t: Test, ops: Ops, dim: number) {
    await ops.store('c-ns-a', { id: 'same', text: 'alpha', vector: seededVector(7, dim) });
    await ops.store('c-ns-b', { id: 'same', text: 'beta', vector: seededVector(8, dim) });
    t.equal((await ops.retrieve('c-ns-a', 'same')).text, 'alpha');
    t.equal((await ops.retrieve('c-ns-b', 'same')).text, 'beta');
    t.same(
      (await ops.search('c-ns-a', { vector: seededVector(8, dim), k: 10 })).map((h) => h.text),
      ['alpha'],
      'search sees only its namespace',
    );
    t.same(
      (await ops.list('c-ns-b', {})).items.map((m) => m.text),
      ['beta'],
    );
    t.equal(await ops.delete('c-ns-a', 'same'), true);
    t.equal((await ops.retrieve('c-ns-b', 'same')).text, 'beta', 'a delete in one namespace leaves the other');
    t.same(await ops.search('c-ns-unused', { text: 'alpha', k: 3 }), [], 'an empty namespace finds nothing');
    t.same((await ops.list('c-ns-unused', {})).items, []);
  },

  async 'a wrong dimension is refused'(t: Test, ops: Ops, dim: number) {
    const refusal = { code: 'ABX_ERR_VALIDATION', statusCode: 400, message: new RegExp(`${dim - 1} dimensions.*${dim}`) };
    await t.rejects(ops.store('c-dim', { text: 'x', vector: seededVector(1, dim - 1) }), refusal);
    await t.rejects(ops.search('c-dim', { vector: seededVector(1, dim - 1), k: 1 }), refusal);
    await t.rejects(ops.store('c-dim', { text: 'x', vector: seededVector(1, dim + 1) }), { code: 'ABX_ERR_VALIDATION' });
    t.same((await ops.list('c-dim', {})).items, [], 'nothing was stored');
  },

  async 'delete removes from retrieve, search and list; deleting again is false'(t: Test, ops: Ops, dim: number) {
    for (let i = 0; i < 3; i++) await ops.store('c-del', { id: `d${i}`, text: `d ${i}`, vector: seededVector(30 + i, dim) });
    t.equal(await ops.delete('c-del', 'd1'), true);
    t.equal(await ops.delete('c-del', 'd1'), false, 'nothing left to delete');
    t.equal(await ops.delete('c-del', 'never'), false);
    await t.rejects(ops.retrieve('c-del', 'd1'), { code: 'ABX_ERR_NOT_FOUND', statusCode: 404 });
    t.notOk(
      (await ops.search('c-del', { vector: seededVector(31, dim), k: 3 })).some((h) => h.id === 'd1'),
      'not found by its own vector',
    );
    t.same(
      (await ops.list('c-del', {})).items.map((m) => m.id),
      ['d0', 'd2'],
    );
  },

  async 'list pages in insertion order with an opaque cursor'(t: Test, ops: Ops, dim: number) {
    for (let i = 0; i < 5; i++) await ops.store('c-list', { id: `l${i}`, text: `l ${i}`, metadata: { i }, vector: seededVector(50 + i, dim) });
    t.same(await allPages(ops, 'c-list', 2), [['l0', 'l1'], ['l2', 'l3'], ['l4']]);
    const page = await ops.list('c-list', { limit: 1 });
    t.match(page.items[0], { id: 'l0', namespace: 'c-list', text: 'l 0', metadata: { i: 0 } });
    t.match(page.items[0]!.createdAt, ISO);
    t.notOk('vector' in page.items[0]!, 'listings carry no vectors');
    await t.rejects(ops.list('c-list', { cursor: 'not-a-cursor' }), { code: 'ABX_ERR_VALIDATION' });
  },

  async 'storing an existing id replaces it'(t: Test, ops: Ops, dim: number) {
    await ops.store('c-replace', { id: 'r', text: 'old', vector: seededVector(60, dim) });
    await ops.store('c-replace', { id: 'r', text: 'new', metadata: { v: 2 }, vector: seededVector(61, dim) });
    t.match(await ops.retrieve('c-replace', 'r'), { text: 'new', metadata: { v: 2 } });
    const hits = await ops.search('c-replace', { vector: seededVector(61, dim), k: 5 });
    t.same(
      hits.map((h) => h.id),
      ['r'],
      'one record, found by its new vector',
    );
    t.ok(Math.abs(hits[0]!.score - 1) < 1e-4);
    t.equal((await ops.list('c-replace', {})).items.length, 1);
  },

  async 'invalid input is refused with validation errors'(t: Test, ops: Ops, dim: number) {
    const bad = { code: 'ABX_ERR_VALIDATION', statusCode: 400 };
    const v = seededVector(70, dim);
    await t.rejects(ops.store('../etc', { text: 'x', vector: v }), bad, 'namespace with a path');
    await t.rejects(ops.store('c-bad', { id: 'has space', text: 'x', vector: v }), bad, 'id with a space');
    await t.rejects(ops.store('c-bad', { text: 'x', vector: v.map((x, i) => (i === 3 ? Number.NaN : x)) }), bad, 'NaN component');
    await t.rejects(ops.store('c-bad', { text: 'x', vector: new Array<number>(dim).fill(0) }), bad, 'zero vector');
    await t.rejects(ops.store('c-bad', { text: '!!! ...' }), { ...bad, message: /no letters or digits/ }, 'text with nothing to embed');
    await t.rejects(ops.store('c-bad', { text: 'x', metadata: [1] as unknown as Record<string, unknown>, vector: v }), bad, 'array metadata');
    await t.rejects(ops.search('c-bad', { k: 3 }), { ...bad, message: /text or a vector/ });
    await t.rejects(ops.search('c-bad', { text: 'x', k: 0 }), bad, 'k = 0');
    await t.rejects(ops.search('c-bad', { text: 'x', k: 101 }), bad, 'k above the cap');
    await t.rejects(ops.retrieve('c-bad', 'missing'), { code: 'ABX_ERR_NOT_FOUND' });
    t.same((await ops.list('c-bad', {})).items, [], 'nothing was stored');
  },
};

/**
 * Run the memory contract against the slot `setup` starts (through the resolver). Every case gets
 * a fresh slot; a case in `options.skip` is skipped with its reason.
 */
export function memoryContract(t: Test, setup: () => Promise<SlotHarness<'memory'>>, options: MemoryContractOptions): void {
  for (const [name, run] of Object.entries(cases) as Array<[MemoryCase, (t: Test, ops: Ops, dim: number) => Promise<void>]>) {
    const reason = options.skip?.[name];
    t.test(name, reason ? { skip: reason } : {}, async (t) => {
      const h = await setup();
      t.teardown(() => h.close());
      t.equal(h.state(), 'healthy', `the slot is healthy (${h.reason() ?? ''})`);
      await run(t, h.ops, options.dimension);
    });
  }
}

/** The contract of `memory = "off"`: every operation is a predictable 503, never a synchronous throw. */
export function memoryOffContract(t: Test, setup: () => Promise<SlotHarness<'memory'>>): void {
  t.test('off: every operation is a predictable 503 ABX_ERR_ADAPTER_OFF', async (t) => {
    const h = await setup();
    t.teardown(() => h.close());
    t.equal(h.state(), 'off');
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['store', () => h.ops.store('ns', { text: 'x' })],
      ['store nonsense', () => h.ops.store(undefined as unknown as string, null as unknown as { text: string })],
      ['search', () => h.ops.search('ns', { text: 'x', k: 3 })],
      ['search nonsense', () => h.ops.search('../x', { k: -1 })],
      ['retrieve', () => h.ops.retrieve('ns', 'id')],
      ['delete', () => h.ops.delete('ns', 'id')],
      ['list', () => h.ops.list('ns', { limit: 5 })],
      ['list nonsense', () => h.ops.list(42 as unknown as string, null as unknown as object)],
    ];
    await expectRefusedAsOff(t, calls, { statusCode: 503, message: /"memory" is off/ });
    t.equal(h.state(), 'off', 'still off: refusals do not degrade the slot');
  });
}

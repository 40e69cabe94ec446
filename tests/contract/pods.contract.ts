// The pods contract: what every pods implementation does, exercised through the resolver's dispatching operations.
import type tap from 'tap';
import { randomBytes } from 'node:crypto';
import type { SlotHarness } from './pods-harness.js';
import { expectRefusedAsOff } from './support/off-refusals.js';

type Test = Parameters<Parameters<typeof tap.test>[0]>[0];
type Ops = SlotHarness<'pods'>['ops'];

/** Names of the contract's cases; a skip list maps some of them to the reason they do not apply. */
export type PodsCase = keyof typeof cases;

const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const str = (b: Uint8Array) => Buffer.from(b).toString('utf8');
const plain = { contentType: 'text/plain' };

/** Paths that escape the pod or are not pod paths; every operation must refuse them as input errors. */
export const HOSTILE_PATHS = [
  'relative.txt',
  '/../outside.txt',
  '/a/../../outside.txt',
  '/a/%2e%2e/%2e%2e/outside.txt',
  '/a/%252e%252e/x',
  '/a/%2F..%2Fx',
  '//double',
  '/a\\..\\b',
  '/nul\u0000byte',
  '/.abx-meta.x',
  '/a/./b',
];

const cases = {
  async 'put then get returns the bytes, content type and a strong ETag'(t: Test, ops: Ops, base: string) {
    const put = await ops.put(`${base}notes/a.md`, text('# hello'), { contentType: 'text/markdown' });
    t.equal(put.created, true);
    t.match(put.etag, /^"[^"]+"$/, 'a strong, quoted ETag');
    const got = await ops.get(`${base}notes/a.md`);
    t.equal(str(got.body), '# hello');
    t.match(got.contentType, /^text\/markdown/);
    t.equal(got.etag, put.etag);
    t.equal(got.size, 7);
    t.equal(got.isContainer, false);
    t.equal(got.path, `${base}notes/a.md`);
    t.ok(!Number.isNaN(Date.parse(got.modifiedAt)), 'modifiedAt is a date');
    const container = await ops.get(`${base}notes/`);
    t.equal(container.isContainer, true, 'intermediate containers are created');
    t.match(container.contentType, /^text\/turtle/);
    t.match(str(container.body), /a\.md/, 'the container representation names its member');
  },

  async 'a replace is not a create and changes the ETag; bytes survive exactly'(t: Test, ops: Ops, base: string) {
    const first = await ops.put(`${base}r.bin`, new Uint8Array([0, 1, 2]), { contentType: 'application/octet-stream' });
    const all = new Uint8Array(256).map((_, i) => i);
    const second = await ops.put(`${base}r.bin`, all, { contentType: 'application/octet-stream' });
    t.equal(second.created, false);
    t.not(second.etag, first.etag);
    const got = await ops.get(`${base}r.bin`);
    t.same([...got.body], [...all]);
    t.equal(got.etag, second.etag);
  },

  async 'If-Match: the current ETag writes, a stale one is 412 and changes nothing'(t: Test, ops: Ops, base: string) {
    const v1 = await ops.put(`${base}m.txt`, text('one'), plain);
    const v2 = await ops.put(`${base}m.txt`, text('two'), { ...plain, ifMatch: v1.etag });
    t.equal(v2.created, false, 'the matching ETag is accepted');
    await t.rejects(ops.put(`${base}m.txt`, text('three'), { ...plain, ifMatch: v1.etag }), { code: 'ABX_ERR_PRECONDITION_FAILED' });
    t.equal(str((await ops.get(`${base}m.txt`)).body), 'two');
    await t.rejects(
      ops.put(`${base}absent.txt`, text('x'), { ...plain, ifMatch: v1.etag }),
      { code: 'ABX_ERR_PRECONDITION_FAILED' },
      'If-Match on an absent resource fails',
    );
    await t.rejects(ops.get(`${base}absent.txt`), { code: 'ABX_ERR_NOT_FOUND' }, 'and creates nothing');
  },

  async 'If-None-Match: * creates once, then is 412'(t: Test, ops: Ops, base: string) {
    t.equal((await ops.put(`${base}once.txt`, text('first'), { ...plain, ifNoneMatch: '*' })).created, true);
    await t.rejects(ops.put(`${base}once.txt`, text('second'), { ...plain, ifNoneMatch: '*' }), { code: 'ABX_ERR_PRECONDITION_FAILED' });
    t.equal(str((await ops.get(`${base}once.txt`)).body), 'first');
  },

  async 'concurrent writes with the same If-Match: exactly one wins'(t: Test, ops: Ops, base: string) {
    const { etag } = await ops.put(`${base}race.txt`, text('start'), plain);
    const results = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => ops.put(`${base}race.txt`, text(`writer ${i}`), { ...plain, ifMatch: etag })));
    const won = results.filter((r) => r.status === 'fulfilled');
    t.equal(won.length, 1, 'one writer wins');
    for (const r of results) if (r.status === 'rejected') t.match(r.reason, { code: 'ABX_ERR_PRECONDITION_FAILED' });
  },

  async 'delete: gone afterwards, conditions honoured, absent is 404'(t: Test, ops: Ops, base: string) {
    const { etag } = await ops.put(`${base}d.txt`, text('bye'), plain);
    await t.rejects(ops.delete(`${base}d.txt`, { ifMatch: '"stale"' }), { code: 'ABX_ERR_PRECONDITION_FAILED' });
    t.equal(str((await ops.get(`${base}d.txt`)).body), 'bye', 'still there after the failed delete');
    await ops.delete(`${base}d.txt`, { ifMatch: etag });
    await t.rejects(ops.get(`${base}d.txt`), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.delete(`${base}d.txt`), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.delete(`${base}d.txt`, { ifMatch: etag }), { code: 'ABX_ERR_PRECONDITION_FAILED' });
    await t.rejects(ops.delete('/'), { code: 'ABX_ERR_CONFLICT' }, 'the root stays');
  },

  async 'containers: created empty, idempotent, deleted only when empty'(t: Test, ops: Ops, base: string) {
    const made = await ops.put(`${base}box/`, new Uint8Array(0), { contentType: 'text/turtle' });
    t.equal(made.created, true);
    t.equal((await ops.put(`${base}box/`, new Uint8Array(0), { contentType: 'text/turtle' })).created, false);
    await t.rejects(ops.put(`${base}box2/`, text('body'), { contentType: 'text/turtle' }), { code: 'ABX_ERR_VALIDATION' });
    await ops.put(`${base}box/item.txt`, text('x'), plain);
    await t.rejects(ops.delete(`${base}box/`), { code: 'ABX_ERR_CONFLICT' }, 'not while it has members');
    await ops.delete(`${base}box/item.txt`);
    await ops.delete(`${base}box/`);
    await t.rejects(ops.get(`${base}box/`), { code: 'ABX_ERR_NOT_FOUND' });
  },

  async 'a resource and a container cannot share a name'(t: Test, ops: Ops, base: string) {
    await ops.put(`${base}f`, text('file'), plain);
    await t.rejects(ops.put(`${base}f/`, new Uint8Array(0), { contentType: 'text/turtle' }), { code: 'ABX_ERR_CONFLICT' });
    await t.rejects(ops.put(`${base}f/g`, text('x'), plain), { code: 'ABX_ERR_CONFLICT' });
    await ops.put(`${base}dir/`, new Uint8Array(0), { contentType: 'text/turtle' });
    await t.rejects(ops.put(`${base}dir`, text('x'), plain), { code: 'ABX_ERR_CONFLICT' });
  },

  async 'list pages through direct members in path order with a cursor'(t: Test, ops: Ops, base: string) {
    const names = ['e.txt', 'a.txt', 'c.txt', 'b.txt', 'd.txt'];
    for (const n of names) await ops.put(`${base}list/${n}`, text(n), plain);
    await ops.put(`${base}list/sub/deep.txt`, text('deep'), plain);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await ops.list(`${base}list/`, { limit: 2, ...(cursor ? { cursor } : {}) });
      t.ok(page.items.length <= 2);
      seen.push(...page.items.map((i) => i.path));
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    t.equal(pages, 3);
    t.same(
      seen,
      [...names.sort(), 'sub/'].map((n) => `${base}list/${n}`),
      'sorted, no repeats, sub-container with "/", no grandchildren',
    );
    const all = await ops.list(`${base}list/`, {});
    t.equal(all.nextCursor, undefined);
    const a = all.items.find((i) => i.path.endsWith('/a.txt'));
    t.equal(a?.etag, (await ops.get(`${base}list/a.txt`)).etag, 'entries carry the same ETag as get');
    t.match(a, { isContainer: false, size: 5 });
    t.match(a?.contentType, /^text\/plain/);
    t.equal(all.items.find((i) => i.path.endsWith('/sub/'))?.isContainer, true);
  },

  async 'list refuses bad input and missing containers'(t: Test, ops: Ops, base: string) {
    await ops.put(`${base}lx/a.txt`, text('a'), plain);
    await t.rejects(ops.list(`${base}lx/`, { cursor: 'not-a-cursor' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.list(`${base}lx/`, { limit: 0 }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.list(`${base}lx/a.txt`, {}), { code: 'ABX_ERR_VALIDATION' }, 'a resource path is not a container');
    await t.rejects(ops.list(`${base}nothing-here/`, {}), { code: 'ABX_ERR_NOT_FOUND' });
  },

  async 'names with spaces, unicode and percent signs round-trip'(t: Test, ops: Ops, base: string) {
    const odd = ['ümlaut file.txt', '100% sure.txt', "quote's (1).txt"];
    for (const n of odd) await ops.put(`${base}odd/${n}`, text(n), plain);
    const listed = (await ops.list(`${base}odd/`, {})).items.map((i) => i.path);
    t.same(
      listed,
      odd.sort().map((n) => `${base}odd/${n}`),
    );
    for (const n of odd) t.equal(str((await ops.get(`${base}odd/${n}`)).body), n);
  },

  async 'traversal and malformed paths are input errors for every operation'(t: Test, ops: Ops) {
    for (const p of HOSTILE_PATHS) {
      await t.rejects(ops.get(p), { code: 'ABX_ERR_VALIDATION' }, `get ${JSON.stringify(p)}`);
      await t.rejects(ops.put(p, text('x'), plain), { code: 'ABX_ERR_VALIDATION' }, `put ${JSON.stringify(p)}`);
      await t.rejects(ops.delete(p), { code: 'ABX_ERR_VALIDATION' }, `delete ${JSON.stringify(p)}`);
      await t.rejects(ops.list(p.endsWith('/') ? p : `${p}/`, {}), { code: 'ABX_ERR_VALIDATION' }, `list ${JSON.stringify(p)}`);
    }
  },

  async 'a content type that is not a media type is refused'(t: Test, ops: Ops, base: string) {
    await t.rejects(ops.put(`${base}ct.txt`, text('x'), { contentType: 'not a type' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.put(`${base}ct.txt`, text('x'), { contentType: 'text/plain\r\nX-Injected: 1' }), { code: 'ABX_ERR_VALIDATION' });
  },
};

/**
 * Run the pods contract against the slot `setup` starts (once, for all cases). `skip` maps a case
 * name to the reason it does not apply to this implementation; every case not skipped must pass.
 */
export function podsContract(t: Test, setup: () => Promise<SlotHarness<'pods'>>, skip: Partial<Record<PodsCase, string>> = {}): void {
  let harness: SlotHarness<'pods'> | undefined;
  t.before(async () => {
    harness = await setup();
  });
  t.teardown(async () => harness?.close());
  for (const [name, run] of Object.entries(cases) as Array<[PodsCase, (t: Test, ops: Ops, base: string) => Promise<void>]>) {
    const reason = skip[name];
    t.test(name, reason ? { skip: reason } : {}, async (t) => {
      t.equal(harness?.state(), 'healthy', 'the slot is healthy');
      // Each case works under its own container, so cases cannot see each other's data.
      await run(t, harness!.ops, `/contract-${randomBytes(4).toString('hex')}/`);
    });
  }
}

/**
 * The contract of `pods = "off"`: the slot reports `off`, and every operation — whatever its
 * arguments, even nonsense — returns a promise rejected with ABX_ERR_ADAPTER_OFF (503), never a
 * synchronous throw and never another error.
 */
export function podsOffContract(t: Test, setup: () => Promise<SlotHarness<'pods'>>): void {
  t.test('off: every operation is a predictable 503 ABX_ERR_ADAPTER_OFF', async (t) => {
    const h = await setup();
    t.teardown(() => h.close());
    t.equal(h.state(), 'off');
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['get', () => h.ops.get('/a.txt')],
      ['get hostile', () => h.ops.get('/../etc/passwd')],
      ['put', () => h.ops.put('/a.txt', text('x'), plain)],
      ['put nonsense', () => h.ops.put(undefined as unknown as string, undefined as unknown as Uint8Array, undefined as unknown as { contentType: string })],
      ['delete', () => h.ops.delete('/a.txt', { ifMatch: '"x"' })],
      ['list', () => h.ops.list('/', { limit: 5 })],
      ['list nonsense', () => h.ops.list(42 as unknown as string, null as unknown as object)],
    ];
    await expectRefusedAsOff(t, calls, { statusCode: 503, message: /"pods" is off/ });
    t.equal(h.state(), 'off', 'still off: refusals do not degrade the slot');
  });
}

// The one cursor pager: each slot's cursors on the wire, page sizes, refusals, and the page shape.
import t from 'tap';
import { afterNameCursor, cursorPager, mapPage, seqCursor } from '../../management-api/src/adapters/cursor-pager.js';
import { BEADS_PAGER } from '../../management-api/src/adapters/beads/bead-rows.js';
import { EVENTS_PAGER } from '../../management-api/src/adapters/events/log-reader.js';
import { MEMORY_PAGER } from '../../management-api/src/adapters/memory/memory-input.js';
import { PODS_PAGER, pageOfNames } from '../../management-api/src/adapters/pods/pod-page.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

t.test('each slot keeps its cursor format on the wire, and reads it back', async (t) => {
  t.equal(BEADS_PAGER.encodeCursor(42), b64('bead:42'));
  t.equal(EVENTS_PAGER.encodeCursor(42), b64('seq:42'));
  t.equal(MEMORY_PAGER.encodeCursor(42), b64('m1:42'));
  t.equal(PODS_PAGER.encodeCursor('a b/'), b64('{"after":"a b/"}'));
  for (const pager of [BEADS_PAGER, EVENTS_PAGER, MEMORY_PAGER]) {
    t.equal(pager.decodeCursor(pager.encodeCursor(123_456_789)), 123_456_789);
    t.equal(pager.decodeCursor(undefined), 0, 'no cursor: the first page');
    t.equal(pager.decodeCursor(''), 0, 'an empty cursor: the first page');
  }
  t.equal(PODS_PAGER.decodeCursor(PODS_PAGER.encodeCursor('zz')), 'zz');
  t.equal(PODS_PAGER.decodeCursor(undefined), '');
});

t.test('a cursor another slot (or nobody) handed out is refused with 400 ABX_ERR_VALIDATION', async (t) => {
  const cases: Array<[{ decodeCursor(c: string): unknown }, string, string]> = [
    [BEADS_PAGER, b64('seq:1'), 'beads store'],
    [EVENTS_PAGER, b64('bead:1'), 'event sink'],
    [MEMORY_PAGER, 'not-a-cursor', 'memory store'],
    [MEMORY_PAGER, b64('m1:x'), 'memory store'],
    [MEMORY_PAGER, b64('m1:1234567890123456'), 'memory store'],
    [PODS_PAGER, b64('{"after":1}'), 'pod listing'],
    [PODS_PAGER, '', 'pod listing'],
    [PODS_PAGER, b64('m1:1'), 'pod listing'],
  ];
  for (const [pager, cursor, issuer] of cases) {
    t.throws(
      () => pager.decodeCursor(cursor),
      { code: 'ABX_ERR_VALIDATION', statusCode: 400, message: `cursor is not one this ${issuer} handed out` },
      `${issuer}: ${cursor}`,
    );
  }
});

t.test('page sizes: the slot default, capped at its maximum; anything but a positive integer refused', async (t) => {
  t.same(
    [BEADS_PAGER, EVENTS_PAGER, MEMORY_PAGER, PODS_PAGER].map((p) => [p.pageLimit(undefined), p.pageLimit(1e6), p.pageLimit(7)]),
    [
      [50, 500, 7],
      [100, 1000, 7],
      [50, 500, 7],
      [100, 1000, 7],
    ],
  );
  for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5' as unknown as number]) {
    t.throws(
      () => BEADS_PAGER.pageLimit(bad),
      { code: 'ABX_ERR_VALIDATION', message: /^limit must be a positive integer, not .* \(at most 500 are returned\)$/ },
      String(bad),
    );
  }
});

t.test('the page shape: limit + 1 rows make a page of limit with a cursor after its last item', async (t) => {
  const pager = cursorPager({ codec: seqCursor('t'), defaultLimit: 2, maxLimit: 10, issuer: 'test' });
  const rows = [{ seq: 3 }, { seq: 5 }, { seq: 9 }];
  t.same(
    pager.page(rows, 3, (r) => r.seq),
    { items: rows },
    'all fit: no cursor',
  );
  t.notOk('nextCursor' in pager.page(rows, 3, (r) => r.seq), 'the key is absent, not undefined');
  const first = pager.page(rows, 2, (r) => r.seq);
  t.same(first, { items: [{ seq: 3 }, { seq: 5 }], nextCursor: b64('t:5') });
  t.equal(pager.decodeCursor(first.nextCursor), 5);
  t.same(
    mapPage(first, (r) => r.seq * 2),
    { items: [6, 10], nextCursor: b64('t:5') },
  );
  t.same(
    mapPage({ items: [1] }, (n) => n + 1),
    { items: [2] },
  );
  t.equal(afterNameCursor().start, '');
});

t.test('pods pages member names in path order after the cursor', async (t) => {
  const names = ['c', 'a/', 'b', 'A'];
  const first = pageOfNames(names, { limit: 2 });
  t.same(first, { names: ['A', 'a/'], nextCursor: PODS_PAGER.encodeCursor('a/') });
  t.same(pageOfNames(names, { limit: 2, cursor: first.nextCursor! }), { names: ['b', 'c'] });
  t.same(pageOfNames([], {}), { names: [] });
});

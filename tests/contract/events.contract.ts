// The events contract: what every events implementation does, exercised through the resolver's dispatching operations.
import type tap from 'tap';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventFilter, StoredEvent } from '../../management-api/src/adapters/events/events-adapter.js';
import type { SlotHarness } from './pods-harness.js';
import { expectRefusedAsOff } from './support/off-refusals.js';

type Test = Parameters<Parameters<typeof tap.test>[0]>[0];
type Ops = SlotHarness<'events'>['ops'];

/** Names of the contract's cases; a skip list maps some of them to the reason they do not apply. */
export type EventsCase = keyof typeof cases;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Every stored event matching `filter`, following cursors. Acknowledged events are durable at
 * once, but a forwarding sink makes them queryable only once delivered: poll until `expected`
 * are there (immediately, for a local log) or the deadline passes.
 */
async function queryAll(ops: Ops, filter: EventFilter, expected: number, limit = 1000): Promise<{ pages: StoredEvent[][]; items: StoredEvent[] }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const pages: StoredEvent[][] = [];
    let cursor: string | undefined;
    do {
      const page = await ops.query({ ...filter, limit, ...(cursor ? { cursor } : {}) });
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor && pages.length < 1000);
    const items = pages.flat();
    if (items.length >= expected || Date.now() > deadline) return { pages, items };
    await sleep(25);
  }
}

const cases = {
  async 'append resolves with stored events: increasing seq, unique ids, times, data defaulted'(t: Test, ops: Ops, kind: string) {
    const stored = await ops.append([
      { kind, source: 'contract', data: { n: 1 } },
      { kind, source: 'contract' },
      { kind: `${kind}.other`, source: 'contract', data: { nested: { a: [1, 2] } } },
    ]);
    t.equal(stored.length, 3);
    t.ok(stored[0]!.seq < stored[1]!.seq && stored[1]!.seq < stored[2]!.seq, 'seq strictly increases in call order');
    t.equal(new Set(stored.map((e) => e.id)).size, 3, 'ids are unique');
    t.ok(
      stored.every((e) => ISO.test(e.time)),
      'times are ISO-8601',
    );
    t.ok(stored[0]!.time <= stored[2]!.time, 'times do not go backwards');
    t.same(stored[1]!.data, {}, 'absent data is stored as {}');
    t.same(stored[2]!.data, { nested: { a: [1, 2] } });
    t.same(await ops.append([]), [], 'an empty append is a no-op');
  },

  async 'query returns stored events by kind, oldest first, exactly as acknowledged'(t: Test, ops: Ops, kind: string) {
    const acked = [
      ...(await ops.append([{ kind, source: 'a', data: { i: 0 } }])),
      ...(await ops.append([
        { kind: `${kind}.x`, source: 'b' },
        { kind, source: 'a', data: { i: 1 } },
      ])),
    ];
    const { items } = await queryAll(ops, { kinds: [kind] }, 2);
    t.same(items, [acked[0], acked[2]], 'only the kind asked for, in seq order, field for field');
    const both = await queryAll(ops, { kinds: [kind, `${kind}.x`] }, 3);
    t.same(
      both.items.map((e) => e.seq),
      acked.map((e) => e.seq),
      'several kinds at once',
    );
  },

  async 'query pages with a cursor and never repeats an event'(t: Test, ops: Ops, kind: string) {
    const acked = await ops.append(Array.from({ length: 25 }, (_, i) => ({ kind, source: 'pager', data: { i } })));
    await queryAll(ops, { kinds: [kind] }, 25);
    const { pages, items } = await queryAll(ops, { kinds: [kind] }, 25, 10);
    t.same(
      pages.map((p) => p.length),
      [10, 10, 5],
      'full pages, then the rest without a cursor',
    );
    t.same(
      items.map((e) => e.id),
      acked.map((e) => e.id),
    );
  },

  async 'query by an inclusive time range'(t: Test, ops: Ops, kind: string) {
    const [e1] = await ops.append([{ kind, source: 'clock' }]);
    await sleep(5);
    const [e2] = await ops.append([{ kind, source: 'clock' }]);
    await sleep(5);
    const [e3] = await ops.append([{ kind, source: 'clock' }]);
    await queryAll(ops, { kinds: [kind] }, 3);
    const ids = async (f: EventFilter) => (await ops.query({ kinds: [kind], ...f })).items.map((e) => e.id);
    t.same(await ids({ since: e2!.time, until: e2!.time }), [e2!.id], 'both bounds inclusive');
    t.same(await ids({ since: e2!.time }), [e2!.id, e3!.id]);
    t.same(await ids({ until: e2!.time }), [e1!.id, e2!.id]);
    t.same(await ids({ since: new Date(Date.parse(e3!.time) + 1).toISOString() }), [], 'nothing after the last');
  },

  async 'subscribe yields events appended after it is live, filtered by kind, until aborted'(t: Test, ops: Ops, kind: string) {
    await ops.append([{ kind, source: 'before' }]);
    const controller = new AbortController();
    const live = await ops.subscribe({ kinds: [kind] }, controller.signal);
    const got: StoredEvent[] = [];
    const reading = (async () => {
      for await (const e of live) {
        got.push(e);
        if (got.length === 3) controller.abort();
      }
    })();
    const acked = [
      ...(await ops.append([
        { kind: `${kind}.noise`, source: 'after' },
        { kind, source: 'after', data: { i: 1 } },
      ])),
      ...(await ops.append([
        { kind, source: 'after', data: { i: 2 } },
        { kind, source: 'after', data: { i: 3 } },
      ])),
    ];
    await reading;
    t.same(
      got,
      acked.filter((e) => e.kind === kind),
      'exactly the matching events appended after subscribing, in order',
    );
  },

  async 'a subscription whose signal aborts ends cleanly, even before any event'(t: Test, ops: Ops, kind: string) {
    const controller = new AbortController();
    const live = await ops.subscribe({ kinds: [kind] }, controller.signal);
    setTimeout(() => controller.abort(), 20);
    let n = 0;
    for await (const _ of live) n += 1;
    t.equal(n, 0, 'the iteration ended without an event or an error');
  },

  async 'many concurrent appends are each acknowledged once, with distinct seqs'(t: Test, ops: Ops, kind: string) {
    const acked = (await Promise.all(Array.from({ length: 200 }, (_, i) => ops.append([{ kind, source: 'burst', data: { i } }])))).flat();
    t.equal(new Set(acked.map((e) => e.seq)).size, 200, 'no seq handed out twice');
    const { items } = await queryAll(ops, { kinds: [kind] }, 200);
    t.same(new Set(items.map((e) => e.id)), new Set(acked.map((e) => e.id)), 'every acknowledged event is stored');
    t.ok(
      items.every((e, i) => i === 0 || e.seq > items[i - 1]!.seq),
      'stored in seq order',
    );
  },

  async 'input is refused with ABX_ERR_VALIDATION'(t: Test, ops: Ops, kind: string) {
    await t.rejects(ops.append([{ kind: '', source: 's' }]), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.append([{ kind, source: '' }]), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.append([{ kind, source: 's', data: [] as never }]), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.query({ since: 'last tuesday' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.query({ limit: 0 }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.query({ cursor: 'not-a-cursor' }), { code: 'ABX_ERR_VALIDATION' });
    t.same((await ops.query({ kinds: [kind] })).items, [], 'refused appends stored nothing');
  },
};

/**
 * Run the events contract against the slot `setup` starts (once, for all cases). Each case uses
 * its own event kind, so cases cannot see each other's events. `skip` maps a case name to the
 * reason it does not apply; every case not skipped must pass.
 */
export function eventsContract(t: Test, setup: () => Promise<SlotHarness<'events'>>, skip: Partial<Record<EventsCase, string>> = {}): void {
  let harness: SlotHarness<'events'> | undefined;
  t.before(async () => {
    harness = await setup();
  });
  t.teardown(async () => harness?.close());
  for (const [name, run] of Object.entries(cases) as Array<[EventsCase, (t: Test, ops: Ops, kind: string) => Promise<void>]>) {
    const reason = skip[name];
    t.test(name, reason ? { skip: reason } : {}, async (t) => {
      t.equal(harness?.state(), 'healthy', 'the slot is healthy');
      await run(t, harness!.ops, `contract.k${randomBytes(4).toString('hex')}`);
    });
  }
}

/** The `off` contract: predictable, no I/O, every operation a rejected promise with ABX_ERR_ADAPTER_OFF. */
export function eventsOffContract(t: Test, setup: () => Promise<SlotHarness<'events'>>): void {
  t.test('every operation answers ABX_ERR_ADAPTER_OFF and the slot reads as off', async (t) => {
    const h = await setup();
    t.teardown(() => h.close());
    t.equal(h.state(), 'off');
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['append', () => h.ops.append([{ kind: 'a.b', source: 's' }])],
      ['query', () => h.ops.query({})],
      ['subscribe', () => h.ops.subscribe({}, new AbortController().signal)],
    ];
    await expectRefusedAsOff(t, calls, { message: /adapters\.events/ });
    t.equal(h.state(), 'off', 'refusals do not change the state');
  });
}

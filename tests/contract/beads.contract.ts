// The beads contract: what every beads implementation does, exercised through the resolver's dispatching operations.
import type tap from 'tap';
import type { Bead } from '../../management-api/src/adapters/beads/beads-adapter.js';
import type { SlotHarness } from './pods-harness.js';
import { expectRefusedAsOff } from './support/off-refusals.js';

type Test = Parameters<Parameters<typeof tap.test>[0]>[0];
type Ops = SlotHarness<'beads'>['ops'];

/** Names of the contract's cases; a skip list maps some of them to the reason they do not apply. */
export type BeadsCase = keyof typeof cases;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every page of a paged operation, following nextCursor. */
async function allPages(fetchPage: (cursor?: string) => Promise<{ items: Bead[]; nextCursor?: string }>): Promise<{ pages: Bead[][]; items: Bead[] }> {
  const pages: Bead[][] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    pages.push(page.items);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 1000);
  return { pages, items: pages.flat() };
}

const cases = {
  async 'create then get returns the bead with its defaults'(t: Test, ops: Ops) {
    const created = await ops.create({ title: 'write the parser', body: 'see issue 12' });
    t.match(created.id, /\S/);
    t.match(created, { kind: 'task', title: 'write the parser', body: 'see issue 12', status: 'open', dependsOn: [] });
    t.match(created.createdAt, ISO);
    t.equal(created.updatedAt, created.createdAt);
    t.notOk('claimedBy' in created || 'outcome' in created || 'parentId' in created, 'no claim, outcome or parent yet');
    t.same(await ops.get(created.id), created, 'get returns what create returned');
    const minimal = await ops.create({ title: 'x' });
    t.equal(minimal.body, '', 'body defaults to empty');
    t.not(minimal.id, created.id, 'ids are unique');
  },

  async 'an epic groups its children; list by parent pages with a cursor in creation order'(t: Test, ops: Ops) {
    const epic = await ops.create({ kind: 'epic', title: 'release 1.0' });
    t.equal(epic.kind, 'epic');
    const children: Bead[] = [];
    for (let i = 0; i < 5; i++) children.push(await ops.create({ title: `child ${i}`, parentId: epic.id }));
    t.ok(children.every((c) => c.parentId === epic.id));
    const { pages, items } = await allPages((cursor) => ops.list({ parentId: epic.id, limit: 2, ...(cursor ? { cursor } : {}) }));
    t.same(
      pages.map((p) => p.length),
      [2, 2, 1],
      'pages of two, the last without a cursor',
    );
    t.same(
      items.map((b) => b.id),
      children.map((c) => c.id),
      'every child once, oldest first',
    );
  },

  async 'list filters by status'(t: Test, ops: Ops) {
    const epic = await ops.create({ kind: 'epic', title: 'status filter' });
    const [a, b, c] = [
      await ops.create({ title: 'a', parentId: epic.id }),
      await ops.create({ title: 'b', parentId: epic.id }),
      await ops.create({ title: 'c', parentId: epic.id }),
    ];
    await ops.claim(b!.id, 'agent-1');
    await ops.closeBead(c!.id, 'success');
    const ids = async (status: 'open' | 'claimed' | 'closed') => (await ops.list({ parentId: epic.id, status })).items.map((x) => x.id);
    t.same(await ids('open'), [a!.id]);
    t.same(await ids('claimed'), [b!.id]);
    t.same(await ids('closed'), [c!.id]);
  },

  async 'create refuses a missing parent, a task as parent and a missing dependency'(t: Test, ops: Ops) {
    const task = await ops.create({ title: 'a task' });
    await t.rejects(ops.create({ title: 'orphan', parentId: 'bd-does-not-exist' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.create({ title: 'child of a task', parentId: task.id }), { code: 'ABX_ERR_VALIDATION', message: /epic/ });
    await t.rejects(ops.create({ title: 'waits on nothing', dependsOn: [task.id, 'bd-does-not-exist'] }), { code: 'ABX_ERR_VALIDATION' });
    t.same((await ops.list({ parentId: task.id })).items, [], 'nothing was created under the task');
  },

  async 'unknown ids are not found'(t: Test, ops: Ops) {
    await t.rejects(ops.get('bd-unknown'), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.claim('bd-unknown', 'agent-1'), { code: 'ABX_ERR_NOT_FOUND' });
    await t.rejects(ops.closeBead('bd-unknown', 'success'), { code: 'ABX_ERR_NOT_FOUND' });
  },

  async 'a claim is idempotent for its winner and a conflict for anyone else'(t: Test, ops: Ops) {
    const bead = await ops.create({ title: 'claim me' });
    const first = await ops.claim(bead.id, 'agent-1');
    t.equal(first.claimed, true);
    t.match(first.bead, { status: 'claimed', claimedBy: 'agent-1' });
    t.match(first.bead.claimedAt, ISO);
    const again = await ops.claim(bead.id, 'agent-1');
    t.equal(again.claimed, true, 'the winner claiming again is told it holds the claim');
    t.equal(again.bead.claimedAt, first.bead.claimedAt, 'and the claim is unchanged');
    await t.rejects(ops.claim(bead.id, 'agent-2'), { code: 'ABX_ERR_CONFLICT', message: /claimed/ });
    t.equal((await ops.get(bead.id)).claimedBy, 'agent-1');
  },

  async 'of many concurrent claimants exactly one wins'(t: Test, ops: Ops) {
    for (let round = 0; round < 4; round++) {
      const bead = await ops.create({ title: `contended ${round}` });
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => ops.claim(bead.id, `agent-${i}`)));
      const winners = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      t.equal(winners.length, 1, `round ${round}: one winner`);
      for (const r of results) if (r.status === 'rejected') t.match(r.reason, { code: 'ABX_ERR_CONFLICT' });
      t.equal((await ops.get(bead.id)).claimedBy, `agent-${winners[0]}`, 'the stored claimant is the winner');
    }
  },

  async 'close records the outcome; the same close again is harmless, another outcome conflicts'(t: Test, ops: Ops) {
    const bead = await ops.create({ title: 'finish me' });
    await ops.claim(bead.id, 'agent-1');
    const closed = await ops.closeBead(bead.id, 'failure', 'tests did not pass');
    t.match(closed, { status: 'closed', outcome: 'failure', outcomeNote: 'tests did not pass', claimedBy: 'agent-1' });
    t.match(closed.closedAt, ISO);
    t.ok(closed.updatedAt >= bead.updatedAt, 'updatedAt moves forward');
    t.same(await ops.closeBead(bead.id, 'failure'), closed, 'closing again with the same outcome changes nothing');
    await t.rejects(ops.closeBead(bead.id, 'success'), { code: 'ABX_ERR_CONFLICT' });
    await t.rejects(ops.claim(bead.id, 'agent-2'), { code: 'ABX_ERR_CONFLICT', message: /closed/ });
    const cancelled = await ops.closeBead((await ops.create({ title: 'never started' })).id, 'cancelled');
    t.equal(cancelled.outcome, 'cancelled', 'an open bead can be cancelled without a claim');
  },

  async 'the ready queue holds open beads whose dependencies all closed with success'(t: Test, ops: Ops) {
    const a = await ops.create({ title: 'A' });
    const b = await ops.create({ title: 'B after A', dependsOn: [a.id] });
    const c = await ops.create({ title: 'C after A and B', dependsOn: [a.id, b.id] });
    const e = await ops.create({ title: 'E' });
    const d = await ops.create({ title: 'D after E', dependsOn: [e.id] });
    t.same([...c.dependsOn].sort(), [a.id, b.id].sort());
    const ready = async () => new Set((await allPages((cursor) => ops.readyQueue({ limit: 100, ...(cursor ? { cursor } : {}) }))).items.map((x) => x.id));
    let r = await ready();
    t.ok(r.has(a.id) && r.has(e.id), 'beads without dependencies are ready');
    t.notOk(r.has(b.id) || r.has(c.id) || r.has(d.id), 'beads with open dependencies are not');
    await t.rejects(ops.claim(b.id, 'agent-1'), { code: 'ABX_ERR_CONFLICT', message: /not ready/ }, 'a bead that is not ready cannot be claimed');
    await ops.claim(a.id, 'agent-1');
    t.notOk((await ready()).has(a.id), 'a claimed bead leaves the queue');
    await ops.closeBead(a.id, 'success');
    await ops.closeBead(e.id, 'failure');
    r = await ready();
    t.ok(r.has(b.id), 'B is ready once A succeeded');
    t.notOk(r.has(c.id), 'C still waits for B');
    t.notOk(r.has(d.id), 'D never becomes ready: E failed');
    await ops.closeBead(b.id, 'success');
    t.ok((await ready()).has(c.id), 'C is ready once A and B succeeded');
  },

  async 'the ready queue pages with a cursor, oldest first'(t: Test, ops: Ops) {
    const mine: string[] = [];
    for (let i = 0; i < 5; i++) mine.push((await ops.create({ title: `ready ${i}` })).id);
    const { pages, items } = await allPages((cursor) => ops.readyQueue({ limit: 2, ...(cursor ? { cursor } : {}) }));
    t.ok(
      pages.every((p) => p.length <= 2),
      'no page is larger than asked',
    );
    const ids = items.map((x) => x.id);
    t.equal(new Set(ids).size, ids.length, 'no bead appears twice across pages');
    t.same(
      ids.filter((id) => mine.includes(id)),
      mine,
      'this case’s beads all appear, in creation order',
    );
    t.ok(items.every((x) => x.status === 'open'));
  },

  async 'input is checked'(t: Test, ops: Ops) {
    const bead = await ops.create({ title: 'valid' });
    await t.rejects(ops.create({ title: '' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.closeBead(bead.id, 'maybe' as never), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.claim(bead.id, ''), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.list({ cursor: 'not-a-cursor' }), { code: 'ABX_ERR_VALIDATION' });
    await t.rejects(ops.readyQueue({ limit: 0 }), { code: 'ABX_ERR_VALIDATION' });
    t.equal((await ops.get(bead.id)).status, 'open', 'refused calls changed nothing');
  },
};

/**
 * Run the beads contract against the slot `setup` starts (once, for all cases). `skip` maps a case
 * name to the reason it does not apply to this implementation; every case not skipped must pass.
 */
export function beadsContract(t: Test, setup: () => Promise<SlotHarness<'beads'>>, skip: Partial<Record<BeadsCase, string>> = {}): void {
  let harness: SlotHarness<'beads'> | undefined;
  t.before(async () => {
    harness = await setup();
  });
  t.teardown(async () => harness?.close());
  for (const [name, run] of Object.entries(cases) as Array<[BeadsCase, (t: Test, ops: Ops) => Promise<void>]>) {
    const reason = skip[name];
    t.test(name, reason ? { skip: reason } : {}, async (t) => {
      t.equal(harness?.state(), 'healthy', 'the slot is healthy');
      await run(t, harness!.ops);
    });
  }
}

/** The `off` contract: predictable, no I/O, every operation a rejected promise with ABX_ERR_ADAPTER_OFF. */
export function beadsOffContract(t: Test, setup: () => Promise<SlotHarness<'beads'>>): void {
  t.test('every operation answers ABX_ERR_ADAPTER_OFF and the slot reads as off', async (t) => {
    const h = await setup();
    t.teardown(() => h.close());
    t.equal(h.state(), 'off');
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['create', () => h.ops.create({ title: 'x' })],
      ['get', () => h.ops.get('bd-1')],
      ['list', () => h.ops.list({})],
      ['claim', () => h.ops.claim('bd-1', 'agent-1')],
      ['closeBead', () => h.ops.closeBead('bd-1', 'success')],
      ['readyQueue', () => h.ops.readyQueue({})],
    ];
    await expectRefusedAsOff(t, calls, { message: /adapters\.beads/ });
    t.equal(h.state(), 'off', 'refusals do not change the state');
  });
}

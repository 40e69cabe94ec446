// The files API's charges against an agent's disk budget between two walks: what counts, until when, and what a prepaid write takes.
import t from 'tap';
import { prepaid, WriteLedger } from '../../management-api/src/workspace-files/write-ledger.js';

t.test('charges count until a walk begun after them, and only those kept', async (t) => {
  let now = 1_000;
  const ledger = new WriteLedger(() => now);
  const a = ledger.begin('agt', 10_000, undefined);
  t.ok(a.take(5_000));
  t.equal(ledger.unseen('agt', undefined), 5_000, 'in flight counts');
  t.notOk(ledger.begin('agt', 10_000, undefined).take(6_000), 'a second write sees the first one going');
  a.end(true);
  t.equal(ledger.unseen('agt', undefined), 8_192, 'kept: rounded up to 4 KiB blocks');
  const dropped = ledger.begin('agt', 10_000, undefined);
  t.ok(dropped.take(1_000));
  dropped.end(false);
  t.equal(ledger.unseen('agt', undefined), 8_192, 'a write that failed counts for nothing');
  t.equal(ledger.unseen('agt', 999), 8_192, 'a walk begun before the write has not seen it');
  t.equal(ledger.unseen('agt', 1_000), 8_192, 'nor one begun the same millisecond');
  now = 2_000;
  t.equal(ledger.unseen('agt', 1_001), 0, 'a walk begun after it has');
  t.equal(ledger.unseen('other', undefined), 0, 'agents apart');
});

t.test('no budget: every take succeeds and nothing is kept', async (t) => {
  const ledger = new WriteLedger();
  const c = ledger.begin('agt', undefined, undefined);
  t.ok(c.take(Number.MAX_SAFE_INTEGER));
  c.end(true);
  t.equal(ledger.unseen('agt', undefined), 0);
});

t.test('many writes: the oldest merge, never counting less', async (t) => {
  let now = 0;
  const ledger = new WriteLedger(() => now);
  for (let i = 0; i < 1_000; i++) {
    now = i;
    const c = ledger.begin('agt', Number.MAX_SAFE_INTEGER, undefined);
    c.take(4096);
    c.end(true);
  }
  t.equal(ledger.unseen('agt', undefined), 1_000 * 4096, 'all of them');
  t.ok(ledger.unseen('agt', 500) >= 500 * 4096, 'those after a walk at least');
});

t.test('prepaid: the whole length at once, or nothing', async (t) => {
  const ledger = new WriteLedger();
  const first = prepaid(ledger.begin('agt', 10_000, undefined), 6_000);
  t.ok(first, 'fits');
  t.equal(prepaid(ledger.begin('agt', 10_000, undefined), 6_000), undefined, 'a second of the same does not');
  t.ok(first!.take(4_000) && first!.take(2_000), 'its takes come out of what it paid');
  t.equal(ledger.unseen('agt', undefined), 6_000, 'not charged twice');
  t.ok(first!.take(1_000), 'past it, from what is left');
  t.equal(ledger.unseen('agt', undefined), 7_000);
  first!.end(true);
  t.equal(ledger.unseen('agt', undefined), 8_192);
});

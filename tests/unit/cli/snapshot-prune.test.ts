// Which snapshots a retention rule deletes: each agent name's series apart, the newest kept, ages, labels spared, and the forms of --older-than.
import t from 'tap';
import { ageOf, prunable } from '../../../scripts/cli/snapshot-prune.js';
import type { SnapshotRecord } from '../../../scripts/cli/snapshot-format.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-06T12:00:00Z');
const stats = { files: 1, bytes: 1, storedBytes: 1, addedBytes: 1, reusedFiles: 0, changed: 0, durationMs: 1 };
/** A snapshot of `name` made `daysAgo` days before NOW. */
const snap = (id: string, name: string, daysAgo: number, label?: string): SnapshotRecord => ({
  id,
  createdAt: new Date(NOW - daysAgo * DAY).toISOString(),
  agent: { id: `agt_${name}`, name, cwd: name },
  stats,
  ...(label ? { label } : {}),
});
const ids = (list: SnapshotRecord[]) => list.map((s) => s.id);

const list = [
  snap('a1', 'worker', 10),
  snap('a2', 'worker', 5, 'good'),
  snap('a3', 'worker', 2),
  snap('a4', 'worker', 0.01),
  snap('b1', 'other', 9),
  snap('b2', 'other', 1),
];

t.test('--keep N: the N newest of each name stay, the rest go oldest first', async (t) => {
  t.same(ids(prunable(list, { keep: 1, labelled: false }, NOW)), ['a1', 'b1', 'a3'], 'labelled a2 spared');
  t.same(ids(prunable(list, { keep: 1, labelled: true }, NOW)), ['a1', 'b1', 'a2', 'a3']);
  t.same(ids(prunable(list, { keep: 0, labelled: true }, NOW)), ['a1', 'b1', 'a2', 'a3', 'b2', 'a4'], 'keep 0: all');
  t.same(ids(prunable(list, { keep: 10, labelled: true }, NOW)), [], 'more kept than there are: none');
});

t.test('--older-than AGE: only what is older goes; with --keep, both must say so', async (t) => {
  t.same(ids(prunable(list, { olderThanMs: 3 * DAY, labelled: false }, NOW)), ['a1', 'b1']);
  t.same(ids(prunable(list, { olderThanMs: 3 * DAY, labelled: true }, NOW)), ['a1', 'b1', 'a2']);
  t.same(ids(prunable(list, { keep: 3, olderThanMs: 1.5 * DAY, labelled: true }, NOW)), ['a1'], 'past the 3 newest and older: worker a1 only');
  t.same(ids(prunable(list, { keep: 0, olderThanMs: 1.5 * DAY, labelled: false }, NOW)), ['a1', 'b1', 'a3']);
});

t.test('the series is the agent name: a restarted agent continues it', async (t) => {
  const restarted = [snap('c1', 'w', 3), { ...snap('c2', 'w', 2), agent: { id: 'agt_new', name: 'w', cwd: 'w' } }];
  t.same(ids(prunable(restarted, { keep: 1, labelled: false }, NOW)), ['c1']);
});

t.test('ageOf: a number and a unit', async (t) => {
  t.equal(ageOf('30m'), 30 * 60_000);
  t.equal(ageOf('12h'), 12 * 3_600_000);
  t.equal(ageOf('7d'), 7 * DAY);
  t.equal(ageOf('2w'), 14 * DAY);
  for (const bad of ['7', 'd', '0d', '-1d', '1.5d', '7 d', '7days', '1y'])
    t.throws(() => ageOf(bad), { message: /give a number and a unit, m, h, d or w/ }, JSON.stringify(bad));
});

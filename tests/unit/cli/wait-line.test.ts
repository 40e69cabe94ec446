// The waiting line of a slow request: shown on a terminal once a second has passed, redrawn, cleared at the end; never on a pipe; an error still cleared and passed on.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { whileWaiting } from '../../../scripts/cli/wait-line.js';

/** A stand-in for stderr that keeps what was written. */
const output = (isTTY: boolean) => {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
};

t.test('on a terminal: nothing for a quick answer; a slow one shows its label and seconds, then the line is cleared', async (t) => {
  const quick = output(true);
  t.equal(await whileWaiting('snapshotting a', Promise.resolve(7), quick), 7);
  t.same(quick.written, [], 'answered at once: nothing drawn');

  const slow = output(true);
  // Due after the line's first draw (1 s): timers of one loop fire in the order they are due.
  t.equal(
    await whileWaiting(
      'snapshotting b',
      sleep(1_300).then(() => 'made'),
      slow,
    ),
    'made',
  );
  t.ok(slow.written.length >= 2, `drawn, then cleared: ${JSON.stringify(slow.written)}`);
  const first = slow.written[0] ?? '';
  t.equal(first.slice(0, 1), '\r', 'drawn over the line');
  t.match(first.slice(1, -3), /^snapshotting b… \d+ s$/, 'the label and the seconds waited');
  t.equal(first.slice(-3), '\u001b[K', 'the rest of the line cleared');
  t.equal(slow.written.at(-1), '\r\u001b[K', 'the line is cleared at the end');
});

t.test('on a pipe or a file: nothing is written, however long it takes', async (t) => {
  const pipe = output(false);
  t.equal(
    await whileWaiting(
      'restoring',
      sleep(1_100).then(() => 1),
      pipe,
    ),
    1,
  );
  t.same(pipe.written, []);
});

t.test('a request that fails: the line is cleared and the error passed on', async (t) => {
  const tty = output(true);
  await t.rejects(
    whileWaiting(
      'building',
      sleep(1_100).then(() => Promise.reject(new Error('refused'))),
      tty,
    ),
    { message: 'refused' },
  );
  t.equal(tty.written.at(-1), '\r\u001b[K');
});

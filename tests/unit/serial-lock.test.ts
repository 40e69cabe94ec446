// OneAtATime (serial-lock.ts, one SerialLock per key): the sections of one key run one after another in call order, a failing one does not block the next, other keys run alongside, and no entry is left once all are done.
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { OneAtATime } from '../../management-api/src/serial-lock.js';

t.test('one key: in call order, never overlapping; a failure does not block the next', async (t) => {
  const lock = new OneAtATime();
  const log: string[] = [];
  let inside = 0;
  let most = 0;
  const section =
    (name: string, ms: number, fail = false) =>
    async () => {
      inside++;
      most = Math.max(most, inside);
      log.push(`${name}>`);
      await sleep(ms);
      log.push(`<${name}`);
      inside--;
      if (fail) throw new Error(`${name} failed`);
      return name;
    };
  const results = await Promise.allSettled([lock.run('k', section('a', 20)), lock.run('k', section('b', 5, true)), lock.run('k', section('c', 1))]);
  t.same(log, ['a>', '<a', 'b>', '<b', 'c>', '<c']);
  t.equal(most, 1, 'never two at once');
  t.same(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    ['a', 'b failed', 'c'],
  );
});

t.test('other keys are not held up, and the last one out leaves no entry', async (t) => {
  const lock = new OneAtATime();
  const order: string[] = [];
  const slow = lock.run('slow', async () => {
    await sleep(30);
    order.push('slow');
  });
  await lock.run('quick', async () => {
    order.push('quick');
  });
  t.same(order, ['quick'], 'the quick key ran while the slow one waited');
  await sleep(0);
  t.equal(lock.busyKeys, 1, 'only the slow key is still busy');
  await slow;
  t.same(order, ['quick', 'slow']);
  await sleep(0);
  t.equal(lock.busyKeys, 0, 'none once all are done');
});

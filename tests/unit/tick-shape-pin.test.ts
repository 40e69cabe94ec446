// The tick-shape pin finds a nextTick record to hold (Node names them TickObject); its effect on speed is measured by `npm run bench -- --only next-tick`.
import t from 'tap';
import { pinTickObjectShape } from '../../management-api/src/boot/tick-shape-pin.js';

t.test('a nextTick record is pinned, once', async (t) => {
  t.equal(pinTickObjectShape(), true, 'Node still queues nextTick callbacks as TickObject records');
  t.equal(pinTickObjectShape(), true, 'a second call keeps the first record');
  await new Promise<void>((resolve) => process.nextTick(resolve));
  t.pass('ticks still run after the one-shot hook');
});

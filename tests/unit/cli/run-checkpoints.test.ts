// `agentbox run --checkpoint-every T --checkpoint-keep N` as the API's checkpoints object, and the usage errors of bad values.
import t from 'tap';
import { checkpointsOf } from '../../../scripts/cli/agents-run.js';

t.test('times and counts', async (t) => {
  t.equal(checkpointsOf(undefined, undefined), undefined, 'none asked');
  t.same(checkpointsOf('30', undefined), { everySec: 30 }, 'bare seconds');
  t.same(checkpointsOf('30s', '3'), { everySec: 30, keep: 3 });
  t.same(checkpointsOf('10m', undefined), { everySec: 600 });
  t.same(checkpointsOf('24h', '100'), { everySec: 86_400, keep: 100 }, 'the largest of each');
});

t.test('bad values: a usage error naming the flag', async (t) => {
  for (const every of ['0', '0s', '25h', '1d', '1.5m', 'soon', '-5', ''])
    t.throws(() => checkpointsOf(every, undefined), { message: /^--checkpoint-every .*: give a time from 1s to 24h/ }, JSON.stringify(every));
  for (const keep of ['0', '101', '2.5', 'all'])
    t.throws(() => checkpointsOf('1m', keep), { message: /^--checkpoint-keep .*: give a whole number from 1 to 100/ }, JSON.stringify(keep));
  t.throws(() => checkpointsOf(undefined, '3'), { message: /--checkpoint-keep needs --checkpoint-every/ });
});

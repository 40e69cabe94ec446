// events/off through the resolver: no I/O, every operation refused with ABX_ERR_ADAPTER_OFF.
import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { eventsOffContract } from './events.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

eventsOffContract(t, () => startSlot('events', onlySlot('events', 'off')));

t.test('an off slot touches no state', async (t) => {
  const h = await startSlot('events', onlySlot('events', 'off'));
  t.teardown(() => h.close());
  await t.rejects(h.ops.append([{ kind: 'a.b', source: 's' }]), { code: 'ABX_ERR_ADAPTER_OFF' });
  t.notOk(existsSync(path.join(h.paths.stateDir, 'events')), 'no log was created');
});

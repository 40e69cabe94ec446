// beads/off through the resolver: no I/O, every operation refused with ABX_ERR_ADAPTER_OFF.
import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { beadsOffContract } from './beads.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

beadsOffContract(t, () => startSlot('beads', onlySlot('beads', 'off')));

t.test('an off slot touches no state', async (t) => {
  const h = await startSlot('beads', onlySlot('beads', 'off'));
  t.teardown(() => h.close());
  await t.rejects(h.ops.create({ title: 'x' }), { code: 'ABX_ERR_ADAPTER_OFF' });
  t.notOk(existsSync(path.join(h.paths.stateDir, 'beads')), 'no database was created');
});

// orchestrator/local-procmgr through the resolver: the orchestrator contract against real child processes.
import t from 'tap';
import { orchestratorContract, PARENT_SECRETS } from './orchestrator.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

// The secrets are in this process's environment too: nothing may fall back to process.env.
Object.assign(process.env, PARENT_SECRETS);
const env = { ...PARENT_SECRETS, PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' };

t.test('contract', async (t) => {
  orchestratorContract(t, () => startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr'), { env }));
});

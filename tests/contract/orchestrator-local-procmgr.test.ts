// orchestrator/local-procmgr through the resolver: the orchestrator contract against real child processes, launcher alone and in bubblewrap.
import t from 'tap';
import { orchestratorContract, PARENT_SECRETS } from './orchestrator.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

// The secrets are in this process's environment too: nothing may fall back to process.env.
Object.assign(process.env, PARENT_SECRETS);
const env = { ...PARENT_SECRETS, PATH: process.env['PATH'], HOME: process.env['HOME'], LANG: 'C.UTF-8' };

t.test('contract (the launcher alone: namespaces off)', async (t) => {
  orchestratorContract(t, () => startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr', '[sandbox]\nnamespaces = "off"\n'), { env }));
});

t.test('contract (each agent in bubblewrap)', async (t) => {
  const pidNamespace =
    'an agent sees the pids of its own PID namespace, not the host pids this case checks; tests/unit/sandbox/namespace-sandbox.test.ts shows what it leaves running ends with it';
  orchestratorContract(
    t,
    async () => {
      // required: a spawn is refused rather than run without bubblewrap, so every case below ran inside it.
      return startSlot('orchestrator', onlySlot('orchestrator', 'local-procmgr', '[sandbox]\nnamespaces = "required"\n'), { env });
    },
    { 'terminate: SIGKILL after the grace period, and grandchildren die too': pidNamespace, 'what an agent leaves running ends with it': pidNamespace },
  );
});

// orchestrator = "off" through the resolver: the API starts, and every operation is a predictable refusal.
import t from 'tap';
import { orchestratorOffContract } from './orchestrator.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

orchestratorOffContract(t, () => startSlot('orchestrator', onlySlot('orchestrator', 'off')));

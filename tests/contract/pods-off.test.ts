// pods = "off" through the resolver: predictable refusals, nothing else.
import t from 'tap';
import { podsOffContract } from './pods.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

podsOffContract(t, () => startSlot('pods', onlySlot('pods', 'off')));

// memory = "off" through the resolver: predictable refusals, nothing else.
import t from 'tap';
import { memoryOffContract } from './memory.contract.js';
import { onlySlot, startSlot } from './pods-harness.js';

memoryOffContract(t, () => startSlot('memory', onlySlot('memory', 'off')));

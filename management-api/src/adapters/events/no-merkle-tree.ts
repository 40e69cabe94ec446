// The transparency operations of an events sink that keeps no Merkle tree: each rejects with a 404 saying so.
import { AdapterNotFoundError } from '../../adapter-errors.js';
import type { EventsAdapter } from './events-adapter.js';

type TreeOperations = Pick<EventsAdapter, 'checkpoint' | 'signCheckpoint' | 'inclusionProof' | 'consistencyProof' | 'logKey'>;

/** The five operations, rejecting: `why` says which sink this is and where its log lives. */
export function noMerkleTree(why: string): TreeOperations {
  const refuse = () => Promise.reject(new AdapterNotFoundError(`the event log's Merkle tree (${why})`));
  return { checkpoint: refuse, signCheckpoint: refuse, inclusionProof: refuse, consistencyProof: refuse, logKey: refuse };
}

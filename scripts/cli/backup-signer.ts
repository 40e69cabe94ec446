// `--signed-by KEY` of backup verify and restore: a box identity as npub1… or 64 hex digits, read as its npub.
import { asNpub } from '../../management-api/src/backup/index-signature.js';
import { UsageError } from './cli-errors.js';

/** The npub `--signed-by` names; bad usage when it is no public key. */
export function signerKey(value: string): string {
  const npub = asNpub(value);
  if (npub === undefined)
    throw new UsageError(
      `--signed-by ${JSON.stringify(value)} is not a public key: give the box's npub1… or its 64 hex digits (agentbox identity prints them)`,
    );
  return npub;
}

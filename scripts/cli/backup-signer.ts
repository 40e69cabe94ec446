// `--signed-by KEY` and `--not-before TIME` of backup verify and restore: a box identity as npub1… or 64 hex digits, read as its npub, and the earliest time a backup it signed may have been made.
import { asNpub } from '../../management-api/src/backup/index-signature.js';
import { UsageError } from './cli-errors.js';
import { timeOrAge } from './time-or-age.js';

/** The npub `--signed-by` names; bad usage when it is no public key. */
export function signerKey(value: string): string {
  const npub = asNpub(value);
  if (npub === undefined)
    throw new UsageError(
      `--signed-by ${JSON.stringify(value)} is not a public key: give the box's npub1… or its 64 hex digits (agentbox identity prints them)`,
    );
  return npub;
}

/**
 * What a backup is held to, from the two options. `--not-before` needs `--signed-by`: the time is
 * the index's own, which whoever writes an unsigned backup sets as they like.
 */
export function signatureOptions(signedBy: string | undefined, notBefore: string | undefined, now = Date.now()): { signedBy?: string; notBefore?: string } {
  if (notBefore !== undefined && signedBy === undefined)
    throw new UsageError(
      '--not-before needs --signed-by: the time a backup was made is only worth holding it to when the box signed it (agentbox identity prints its key)',
    );
  return {
    ...(signedBy !== undefined ? { signedBy: signerKey(signedBy) } : {}),
    ...(notBefore !== undefined ? { notBefore: timeOrAge('--not-before', notBefore, now) } : {}),
  };
}

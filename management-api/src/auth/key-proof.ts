// Proof that a party holds the API key, without the key being sent: the answer to a random challenge is
// an HMAC under a key derived from the API key. The command line asks for it before it sends the key to
// a URL, so a key goes only to a box that has it already.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** A challenge: 32 random bytes as 64 lower-case hex digits. */
export const CHALLENGE_PATTERN = '^[0-9a-f]{64}$';

/**
 * The answer to `challenge` (hex) under `apiKey`. The HMAC key is derived for this use alone, so
 * answers to chosen challenges (the route is public) are worth nothing anywhere else.
 */
export function keyProof(apiKey: string, challenge: string): string {
  const proofKey = createHmac('sha256', apiKey).update('agentbox key proof v1').digest();
  return createHmac('sha256', proofKey).update(Buffer.from(challenge, 'hex')).digest('hex');
}

/** Whether `answer` is the proof of `apiKey` for `challenge` (compared in constant time). */
export function proofHolds(answer: unknown, apiKey: string, challenge: string): boolean {
  if (typeof answer !== 'string' || !/^[0-9a-f]{64}$/.test(answer)) return false;
  return timingSafeEqual(Buffer.from(answer, 'hex'), Buffer.from(keyProof(apiKey, challenge), 'hex'));
}

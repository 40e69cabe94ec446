// A box proves who it is to a caller that holds its root: it signs the caller's random challenge with
// its Nostr identity (an event of NIP-42's AUTH shape), and the caller checks the signature against the
// identity key under the root. The command line does this before it sends the root's API key anywhere.
import { npubEncode } from 'nostr-tools/nip19';
import { type EventTemplate, type VerifiedEvent, verifyEvent } from 'nostr-tools/pure';

/** NIP-42's AUTH kind: an ephemeral event that answers a challenge. */
export const PROOF_KIND = 22242;
/** The event's content: what the signature is for, so it cannot be taken for another kind of answer. */
export const PROOF_CONTENT = 'agentbox box proof';
/** A challenge: 32 random bytes as hex. */
export const CHALLENGE_PATTERN = '^[0-9a-f]{64}$';

/** The event a box signs to answer `challenge`. */
export function proofTemplate(challenge: string, now: Date): EventTemplate {
  return { kind: PROOF_KIND, created_at: Math.floor(now.getTime() / 1000), tags: [['challenge', challenge]], content: PROOF_CONTENT };
}

/** Why `event` does not prove that the holder of `pubkey` answered `challenge`; undefined when it does. */
export function proofProblem(event: unknown, pubkey: string, challenge: string): string | undefined {
  if (typeof event !== 'object' || event === null) return 'it answered no signed event';
  const e = event as Partial<VerifiedEvent>;
  if (e.kind !== PROOF_KIND || e.content !== PROOF_CONTENT) return 'it answered an event that is not a box proof';
  if (!Array.isArray(e.tags) || !e.tags.some((t) => Array.isArray(t) && t[0] === 'challenge' && t[1] === challenge))
    return 'its proof answers another challenge';
  if (e.pubkey !== pubkey)
    return `it is another box (${typeof e.pubkey === 'string' && /^[0-9a-f]{64}$/.test(e.pubkey) ? npubEncode(e.pubkey) : 'no valid identity'})`;
  // verifyEvent checks the id is the event's hash and the Schnorr signature is the pubkey's over it.
  if (!verifyEvent(e as VerifiedEvent)) return 'its proof is not validly signed';
  return undefined;
}

// The box's identity as the mesh sees it: public forms (hex, npub, did:nostr) and a signer whose
// secret stays inside this object — not enumerable, not serialisable, never logged.
import { finalizeEvent, getPublicKey, type EventTemplate, type VerifiedEvent } from 'nostr-tools/pure';
import { npubEncode } from 'nostr-tools/nip19';

/** The public forms of a Nostr identity. */
export interface PublicIdentity {
  /** 64 lower-case hex characters. */
  pubkey: string;
  /** NIP-19 `npub1…`. */
  npub: string;
  /** `did:nostr:<hex pubkey>`. */
  did: string;
}

/** The public forms of `pubkey` (hex). */
export function publicIdentity(pubkey: string): PublicIdentity {
  return { pubkey, npub: npubEncode(pubkey), did: `did:nostr:${pubkey}` };
}

/**
 * The box's signing identity. The secret lives in a private field: JSON.stringify, util.inspect
 * and pino see only the public forms, so handing this object around cannot leak the key.
 */
export class BoxIdentity implements PublicIdentity {
  readonly #secret: Uint8Array;
  readonly pubkey: string;
  readonly npub: string;
  readonly did: string;

  constructor(secret: Uint8Array) {
    this.#secret = Uint8Array.from(secret);
    const pub = publicIdentity(getPublicKey(this.#secret));
    this.pubkey = pub.pubkey;
    this.npub = pub.npub;
    this.did = pub.did;
  }

  /** Sign `template` (kind, tags, content, created_at) as this box. */
  sign(template: EventTemplate): VerifiedEvent {
    return finalizeEvent({ ...template, tags: template.tags.map((t) => [...t]) }, this.#secret);
  }

  /** Only the public forms. */
  toJSON(): PublicIdentity {
    return { pubkey: this.pubkey, npub: this.npub, did: this.did };
  }
}

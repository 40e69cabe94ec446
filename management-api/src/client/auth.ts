// How the client authenticates: the box API key, an agent's token, or NIP-98 requests signed by a caller's function.
import { base64, sha256Hex, utf8 } from './encoding.js';

/** An unsigned NIP-98 event (kind 27235) the signer completes with pubkey, id and sig. */
export interface Nip98Template {
  kind: 27235;
  created_at: number;
  tags: string[][];
  content: string;
}

/**
 * A signed Nostr event as NIP-01 gives it (what nostr-tools' `finalizeEvent` returns): its kind a number, as signers
 * type it; the box refuses any kind but 27235.
 */
export interface SignedNostrEvent extends Omit<Nip98Template, 'kind'> {
  kind: number;
  id: string;
  pubkey: string;
  sig: string;
}

/** Signs a template; e.g. `(t) => finalizeEvent(t, secretKey)` with nostr-tools, or a NIP-07 browser extension's `signEvent`. */
export type Nip98Signer = (template: Nip98Template) => SignedNostrEvent | Promise<SignedNostrEvent>;

/** One of: the box API key, an agent token (`abx_agent_…`), or a NIP-98 signer of a key in `mesh.operator_pubkeys`. */
export type Credential = { apiKey: string } | { agentToken: string } | { nip98: Nip98Signer };

/**
 * The Authorization header for one attempt of a request. NIP-98 signs the exact URL, method and
 * body hash, and the box accepts each signed event once: every attempt is signed anew.
 */
export async function authorization(
  credential: Credential | undefined,
  url: string,
  method: string,
  body: string | Uint8Array | undefined,
  now: () => number,
): Promise<string | undefined> {
  if (!credential) return undefined;
  if ('apiKey' in credential) return `Bearer ${credential.apiKey}`;
  if ('agentToken' in credential) return `Bearer ${credential.agentToken}`;
  const tags = [
    ['u', url],
    ['method', method],
  ];
  if (body !== undefined && body.length > 0) tags.push(['payload', await sha256Hex(typeof body === 'string' ? utf8(body) : new Uint8Array(body))]);
  const event = await credential.nip98({ kind: 27235, created_at: Math.floor(now() / 1000), tags, content: '' });
  return `Nostr ${base64(utf8(JSON.stringify(event)))}`;
}

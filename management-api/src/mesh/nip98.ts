// NIP-98 HTTP auth: checking a request's `Authorization: Nostr <base64 event>` (signature, kind,
// exact URL and method, ±60 s, body hash, replay, allowlist) and signing one for outgoing calls.
import { createHash } from 'node:crypto';
import { getToken, unpackEventFromToken, validateEventKind, validateEventMethodTag, validateEventUrlTag } from 'nostr-tools/nip98';
import { verifyEvent, type Event } from 'nostr-tools/pure';
import type { BoxIdentity } from './identity.js';
import { pubkeyToHex } from '../grammar/pubkey.js';
import { ReplayCache } from './replay-cache.js';

/** How far `created_at` may be from the server's clock, in seconds (NIP-98 suggests 60). */
export const NIP98_WINDOW_SEC = 60;

/** Why a token was refused; each reason is a label of the rejection metric. */
export type Nip98Refusal = 'malformed' | 'signature' | 'kind' | 'expired' | 'url' | 'method' | 'payload' | 'replayed' | 'replay-cache-full' | 'not-allowed';

/** The outcome of checking a token. */
export type Nip98Verdict = { ok: true; event: Event } | { ok: false; reason: Nip98Refusal; message: string };

/** sha256 of a request body, hex, as NIP-98's `payload` tag carries it. */
export function payloadHash(body: Uint8Array | string): string {
  return createHash('sha256').update(body).digest('hex');
}

/** Options of {@link Nip98Verifier}. */
export interface Nip98Options {
  /** Hex public keys allowed to authenticate. */
  allowed: ReadonlySet<string>;
  /** Seconds since the epoch; injected so tests control time. */
  now?: () => number;
  /** Most fresh tokens remembered at once (default 100,000): about 1,600 signed requests a second. */
  replayCapacity?: number;
  /**
   * Where used tokens are recorded instead of this process's memory: a mesh host's registry, so
   * that replicas sharing it refuse a token another replica already accepted.
   */
  replays?: TokenLedger;
  /** How the refusal of an unlisted key names the list to add it to (default mesh.operator_pubkeys). */
  allowlistKey?: string;
}

/** Records each token's signature once while it is fresh; see {@link ReplayCache.admit}. */
export interface TokenLedger {
  admit(id: string, expiresAt: number, now: number): 'fresh' | 'replayed' | 'full' | Promise<'fresh' | 'replayed' | 'full'>;
}

/**
 * Checks NIP-98 tokens. nostr-tools decodes the token, verifies the signature and matches kind,
 * URL and method; this class adds what the library lacks or does differently: an injectable clock
 * with an inclusive ±60 s window, the payload hash over the raw body bytes (the library hashes
 * re-serialised JSON and only for object bodies), a replay cache and the allowlist.
 */
export class Nip98Verifier {
  readonly #allowed: ReadonlySet<string>;
  readonly #now: () => number;
  readonly #replays: TokenLedger;
  readonly #allowlistKey: string;

  constructor(options: Nip98Options) {
    this.#allowed = options.allowed;
    this.#now = options.now ?? (() => Math.floor(Date.now() / 1000));
    this.#replays = options.replays ?? new ReplayCache(options.replayCapacity ?? 100_000);
    this.#allowlistKey = options.allowlistKey ?? 'mesh.operator_pubkeys';
  }

  /**
   * Check `token` (the part after `Nostr `) for a request to the absolute `url` with `method`.
   * The body is checked later ({@link checkPayload}); the token is spent (replay cache) only once
   * everything else holds, so a refused request does not burn a token.
   */
  async check(token: string, url: string, method: string): Promise<Nip98Verdict> {
    let event: Event;
    try {
      event = await unpackEventFromToken(token);
    } catch {
      return refuse('malformed', 'the Nostr token is not base64 of a JSON event');
    }
    // The replay cache keys on the signature's text: one signature must have one spelling (hex
    // decoding also accepts upper case, which would otherwise replay the same token unnoticed).
    if (typeof event.sig !== 'string' || !/^[0-9a-f]{128}$/.test(event.sig))
      return refuse('malformed', 'the Nostr token event has no signature of 128 lower-case hex characters');
    // A freshly parsed object: verifyEvent's cached verdict cannot come from elsewhere.
    if (!verifyEvent(event)) return refuse('signature', 'the Nostr token event has a wrong id or signature');
    if (!validateEventKind(event)) return refuse('kind', `the Nostr token event has kind ${String(event.kind)}, not 27235 (NIP-98)`);
    const now = this.#now();
    if (Math.abs(now - event.created_at) > NIP98_WINDOW_SEC)
      return refuse('expired', `the Nostr token was signed at ${event.created_at}, more than ${NIP98_WINDOW_SEC} s from the server's clock (${now})`);
    if (!validateEventUrlTag(event, url)) return refuse('url', `the Nostr token's u tag does not match the request URL ${url} exactly`);
    // Compared case-insensitively (nostr-tools' own getToken examples sign `post`).
    if (!validateEventMethodTag(event, method)) return refuse('method', `the Nostr token's method tag does not match ${method.toUpperCase()}`);
    if (!this.#allowed.has(event.pubkey)) return refuse('not-allowed', `public key ${event.pubkey} is not allowed: list it in ${this.#allowlistKey}`);
    // Keyed by signature, not event id: two identical requests signed in the same second share an
    // id, but BIP-340 signing draws fresh randomness, so their signatures differ; a replay repeats it.
    const admitted = await this.#replays.admit(event.sig, event.created_at + NIP98_WINDOW_SEC, now);
    if (admitted === 'replayed') return refuse('replayed', 'this Nostr token was already used: sign a new event for every request');
    if (admitted === 'full') return refuse('replay-cache-full', 'too many signed requests in the last minute: retry shortly');
    return { ok: true, event };
  }

  /**
   * Check the body against the token's `payload` tag: required when the body is not empty, and
   * when present it must equal the sha256 of the bytes received.
   */
  checkPayload(event: Event, bodyHash: string | undefined, bodyLength: number): Nip98Verdict {
    const tag = tagValue(event, 'payload');
    if (tag === undefined)
      return bodyLength === 0 ? { ok: true, event } : refuse('payload', 'the request has a body but the Nostr token has no payload tag (sha256 of the body)');
    if (tag.toLowerCase() !== (bodyHash ?? payloadHash('')))
      return refuse('payload', "the Nostr token's payload tag does not match the sha256 of the request body");
    return { ok: true, event };
  }
}

function tagValue(event: Event, name: string): string | undefined {
  const tag = event.tags.find((t) => t[0] === name);
  return typeof tag?.[1] === 'string' ? tag[1] : undefined;
}

function refuse(reason: Nip98Refusal, message: string): Nip98Verdict {
  return { ok: false, reason, message };
}

/**
 * The `Authorization` header value for a request signed by `identity`: `Nostr <base64 event>`
 * with the exact URL, the method and, for a body, its sha256 (of these exact bytes).
 */
export async function nip98Header(identity: BoxIdentity, url: string, method: string, body?: Uint8Array | string): Promise<string> {
  const hash = body === undefined || body.length === 0 ? undefined : payloadHash(body);
  return getToken(
    url,
    method.toUpperCase(),
    (template) => identity.sign({ ...template, tags: hash ? [...template.tags, ['payload', hash]] : template.tags }),
    true,
  );
}

/**
 * The hex keys the manifest allows to call the API with NIP-98: `mesh.operator_pubkeys` and
 * `mesh.host_pubkey` (npub or hex). Throws naming the key when one cannot be decoded (rule
 * E037 refuses such a manifest first).
 */
export function nip98Allowlist(mesh: { readonly operator_pubkeys: readonly string[]; readonly host_pubkey: string }): Set<string> {
  const out = new Set<string>();
  const entries = [
    ...mesh.operator_pubkeys.map((k, i) => [`mesh.operator_pubkeys[${i}]`, k] as const),
    ...(mesh.host_pubkey ? [['mesh.host_pubkey', mesh.host_pubkey] as const] : []),
  ];
  for (const [where, key] of entries) {
    const hex = pubkeyToHex(key);
    if (hex === undefined) throw new Error(`${where} = "${key}" is not a valid npub or 64-character hex public key`);
    out.add(hex);
  }
  return out;
}

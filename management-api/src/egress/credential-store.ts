// Per-agent proxy credentials as the egress proxy knows them: sha256 hashes only, checked in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';

/** An agent id as the orchestrator makes them; anything else in a credential is refused unread. */
export const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const HASH = /^[0-9a-f]{64}$/;
/** Longer headers are refused before decoding: a credential is 32 base64url characters. */
const MAX_HEADER = 512;

/** The sha256 (hex) a credential is registered and stored as. */
export function hashCredential(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Who sent a request: an agent with a valid credential, or why not (`agent` is the claimed id, when well-formed). */
export type Identity = { ok: true; agent: string } | { ok: false; reason: 'no-credential' | 'bad-credential'; agent?: string };

/** The credentials of live agents, by agent id. */
export class CredentialStore {
  readonly #hashes = new Map<string, Buffer>();

  /** Register (or replace) an agent's credential hash. Throws on a malformed id or hash. */
  set(agent: string, hash: string): void {
    if (!AGENT_ID.test(agent)) throw new Error(`agent id ${JSON.stringify(agent).slice(0, 80)} is malformed`);
    if (!HASH.test(hash)) throw new Error('a credential hash is 64 lower-case hex digits (sha256)');
    this.#hashes.set(agent, Buffer.from(hash, 'hex'));
  }

  /** Replace every credential by `entries` at once; nothing changes when one is malformed (it throws). */
  replace(entries: ReadonlyArray<{ agent: string; hash: string }>): void {
    const next = new CredentialStore();
    for (const { agent, hash } of entries) next.set(agent, hash);
    this.#hashes.clear();
    for (const [agent, hash] of next.#hashes) this.#hashes.set(agent, hash);
  }

  /** Forget an agent's credential (it exited). */
  delete(agent: string): void {
    this.#hashes.delete(agent);
  }

  /** How many agents hold a credential. */
  get size(): number {
    return this.#hashes.size;
  }

  /** Check a `Proxy-Authorization: Basic base64(<agent id>:<credential>)` header. */
  check(header: string | undefined): Identity {
    if (header === undefined || header === '') return { ok: false, reason: 'no-credential' };
    const m = /^Basic +([A-Za-z0-9+/=]+)$/i.exec(header.length <= MAX_HEADER ? header : '');
    if (!m) return { ok: false, reason: 'bad-credential' };
    const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    const agent = colon > 0 ? decoded.slice(0, colon) : '';
    if (!AGENT_ID.test(agent)) return { ok: false, reason: 'bad-credential' };
    const expected = this.#hashes.get(agent);
    const given = createHash('sha256').update(decoded.slice(colon + 1), 'utf8').digest();
    // Compared even for an unknown agent, so timing does not tell known ids from unknown ones.
    const equal = timingSafeEqual(given, expected ?? Buffer.alloc(32));
    return equal && expected ? { ok: true, agent } : { ok: false, reason: 'bad-credential', agent };
  }
}

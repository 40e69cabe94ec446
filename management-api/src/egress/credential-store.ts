// Per-agent proxy credentials as the egress proxy knows them: sha256 hashes only, checked in constant time.
import { createHash, timingSafeEqual } from 'node:crypto';
import { AUTONOMIES, type Autonomy } from '../policy/policy-types.js';
import { entryProblem } from '../grammar/egress-entry.js';
import { AGENT_NAME } from '../grammar/agent-name.js';

/** An agent id as the orchestrator makes them; anything else in a credential is refused unread. */
export const AGENT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const HASH = /^[0-9a-f]{64}$/;
/** Longer headers are refused before decoding: a credential is 32 base64url characters. */
const MAX_HEADER = 512;
/** Most extra egress entries one agent's credential carries (a profile's egress.allow_domains). */
const MAX_EXTRA_DOMAINS = 256;

/** The sha256 (hex) a credential is registered and stored as. */
export function hashCredential(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What [policy] decisions know of an agent besides its id (registered with its credential). */
export interface AgentFacts {
  name?: string;
  autonomy?: Autonomy;
  /** Entries admitted for this agent alone, after the box's allowlist refused a host (its profile's egress.allow_domains). */
  allowDomains?: readonly string[];
}

/** Who sent a request: an agent with a valid credential (and its facts), or why not (`agent` is the claimed id, when well-formed). */
export type Identity = ({ ok: true; agent: string } & AgentFacts) | { ok: false; reason: 'no-credential' | 'bad-credential'; agent?: string };

/** The credentials of live agents, by agent id. */
export class CredentialStore {
  readonly #hashes = new Map<string, Buffer>();
  readonly #facts = new Map<string, AgentFacts>();

  /** Register (or replace) an agent's credential hash and facts. Throws on a malformed id, hash, name or autonomy. */
  set(agent: string, hash: string, facts: AgentFacts = {}): void {
    if (!AGENT_ID.test(agent)) throw new Error(`agent id ${JSON.stringify(agent).slice(0, 80)} is malformed`);
    if (!HASH.test(hash)) throw new Error('a credential hash is 64 lower-case hex digits (sha256)');
    if (facts.name !== undefined && (typeof facts.name !== 'string' || !AGENT_NAME.test(facts.name)))
      throw new Error(`agent name ${JSON.stringify(facts.name).slice(0, 80)} is malformed`);
    if (facts.autonomy !== undefined && !AUTONOMIES.includes(facts.autonomy))
      throw new Error(`autonomy ${JSON.stringify(facts.autonomy).slice(0, 40)} is neither autonomous nor supervised`);
    const extra = facts.allowDomains;
    if (
      extra !== undefined &&
      (!Array.isArray(extra) || extra.length > MAX_EXTRA_DOMAINS || !extra.every((e) => typeof e === 'string' && entryProblem(e) === undefined))
    )
      throw new Error(`allowDomains must be at most ${MAX_EXTRA_DOMAINS} well-formed egress entries`);
    this.#hashes.set(agent, Buffer.from(hash, 'hex'));
    this.#facts.set(agent, {
      ...(facts.name !== undefined ? { name: facts.name } : {}),
      ...(facts.autonomy !== undefined ? { autonomy: facts.autonomy } : {}),
      ...(extra?.length ? { allowDomains: [...extra] } : {}),
    });
  }

  /** Replace every credential by `entries` at once; nothing changes when one is malformed (it throws). */
  replace(entries: ReadonlyArray<{ agent: string; hash: string } & AgentFacts>): void {
    const next = new CredentialStore();
    for (const { agent, hash, name, autonomy, allowDomains } of entries)
      next.set(agent, hash, {
        ...(name !== undefined ? { name } : {}),
        ...(autonomy !== undefined ? { autonomy } : {}),
        ...(allowDomains !== undefined ? { allowDomains } : {}),
      });
    this.#hashes.clear();
    this.#facts.clear();
    for (const [agent, hash] of next.#hashes) this.#hashes.set(agent, hash);
    for (const [agent, facts] of next.#facts) this.#facts.set(agent, facts);
  }

  /** Forget an agent's credential (it exited). */
  delete(agent: string): void {
    this.#hashes.delete(agent);
    this.#facts.delete(agent);
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
    const given = createHash('sha256')
      .update(decoded.slice(colon + 1), 'utf8')
      .digest();
    // Compared even for an unknown agent, so timing does not tell known ids from unknown ones.
    const equal = timingSafeEqual(given, expected ?? Buffer.alloc(32));
    return equal && expected ? { ok: true, agent, ...this.#facts.get(agent) } : { ok: false, reason: 'bad-credential', agent };
  }
}

// The dashboard's sessions: in the API's memory only, keyed by the hash of the cookie value, with expiry and revocation.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** How a session was opened. */
export type SessionVia = 'api-key' | 'nip98';

/** One signed-in browser. */
export interface UiSession {
  /** The synchronizer token mutations must echo in `x-csrf-token`. */
  csrfToken: string;
  expiresAt: Date;
  via: SessionVia;
  /** Aborted when the session ends (sign-out, expiry, eviction): its open streams are cut then. */
  ended: AbortSignal;
}

/** What the session routes answer: the token, when it ends and how it was opened. */
export interface SessionView {
  csrfToken: string;
  expiresAt: string;
  via: SessionVia;
}

/** Eight hours, after which the operator signs in again. */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** Sessions kept at once; past it the oldest goes (every one needs the key, so this only bounds a careless script). */
export const MAX_SESSIONS = 1_000;

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Compare two secrets in constant time (hashed first, so lengths leak nothing either). */
export function sameSecret(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * Sessions of one API instance. The cookie value (32 random bytes) is handed out once and never
 * stored: the map is keyed by its sha256, so a heap dump does not yield usable cookies. A
 * restart signs everyone out, which is intended.
 */
export class SessionStore {
  readonly #sessions = new Map<string, UiSession>();
  readonly #enders = new Map<string, { abort: AbortController; timer: NodeJS.Timeout }>();

  constructor(private readonly options: { clock: () => Date; ttlMs?: number; max?: number }) {}

  /** Lifetime of a new session, in milliseconds. */
  get ttlMs(): number {
    return this.options.ttlMs ?? SESSION_TTL_MS;
  }

  /** Open a session: answers the cookie value (to send once) and the session. */
  create(via: SessionVia): { cookie: string; session: UiSession } {
    this.#sweep();
    const max = this.options.max ?? MAX_SESSIONS;
    // A Map iterates in insertion order: the first keys are the oldest sessions.
    for (const key of this.#sessions.keys()) {
      if (this.#sessions.size < max) break;
      this.#end(key);
    }
    const cookie = randomBytes(32).toString('base64url');
    const key = keyOf(cookie);
    const abort = new AbortController();
    // Streams outlive the request that opened them: the session's end must reach them on time,
    // not at their next lookup (which a stream never makes).
    const timer = setTimeout(() => this.#end(key), this.ttlMs);
    timer.unref();
    this.#enders.set(key, { abort, timer });
    const session: UiSession = {
      csrfToken: randomBytes(32).toString('base64url'),
      expiresAt: new Date(this.options.clock().getTime() + this.ttlMs),
      via,
      ended: abort.signal,
    };
    this.#sessions.set(key, session);
    return { cookie, session };
  }

  /** The live session a cookie value stands for; an expired one is dropped and not answered. */
  lookup(cookie: string): UiSession | undefined {
    const key = keyOf(cookie);
    const session = this.#sessions.get(key);
    if (!session) return undefined;
    if (session.expiresAt.getTime() <= this.options.clock().getTime()) {
      this.#end(key);
      return undefined;
    }
    return session;
  }

  /** End a session (sign-out); later requests with its cookie are refused. */
  revoke(cookie: string): boolean {
    return this.#end(keyOf(cookie));
  }

  /** End every session (the app is closing). */
  clear(): void {
    for (const key of [...this.#sessions.keys()]) this.#end(key);
  }

  /** Sessions held now (expired ones included until swept). */
  get size(): number {
    return this.#sessions.size;
  }

  #sweep(): void {
    const now = this.options.clock().getTime();
    for (const [key, s] of this.#sessions) if (s.expiresAt.getTime() <= now) this.#end(key);
  }

  #end(key: string): boolean {
    const ender = this.#enders.get(key);
    if (ender) {
      clearTimeout(ender.timer);
      ender.abort.abort();
      this.#enders.delete(key);
    }
    return this.#sessions.delete(key);
  }
}

/** The JSON the session routes answer for a session. */
export function sessionView(session: UiSession): SessionView {
  return { csrfToken: session.csrfToken, expiresAt: session.expiresAt.toISOString(), via: session.via };
}

function keyOf(cookie: string): string {
  return digest(cookie).toString('hex');
}

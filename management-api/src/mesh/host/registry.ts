// The mesh host's member registry: what a member is, and the operations both stores (SQLite, Postgres) provide.
import type { TokenLedger } from '../nip98.js';

/** What a box says about itself when it registers (POST /v1/register). */
export interface Registration {
  /** The member's hex public key (the NIP-98 signer). */
  pubkey: string;
  imageHash: string;
  manifestSha256: string;
  /** Adapter implementation per slot. */
  adapters: Record<string, string>;
  /** Contract version per slot. */
  contractVersions: Record<string, string>;
  /** Where the member's own API answers. */
  apiEndpoint: string;
  capacity: Capacity;
  /** The member's `agentbox.name` (members before it was reported send none). */
  name?: string;
}

/** A member's room for work, reported at registration and with every heartbeat. */
export interface Capacity {
  agents_running: number;
  free_memory_bytes: number;
}

/** What a heartbeat carries. */
export interface Beat {
  health: Record<string, unknown>;
  capacity: Capacity;
}

/** `registered` while heartbeats arrive; `evicted` after three missed intervals (kept, listed, until it registers again). */
export type MemberState = 'registered' | 'evicted';

/** One member as GET /v1/mesh/members lists it (times are ISO strings from the registry's clock). */
export interface MemberRecord {
  pubkey: string;
  sessionId: string;
  state: MemberState;
  apiEndpoint: string;
  imageHash: string;
  manifestSha256: string;
  adapters: Record<string, string>;
  contractVersions: Record<string, string>;
  health: Record<string, unknown> | null;
  capacity: Capacity;
  registeredAt: string;
  lastHeartbeatAt: string;
  evictedAt: string | null;
  /** The box name it registered with, or null. */
  name: string | null;
  /** What this host, as witness, holds of the member's event log (null: nothing yet). */
  witness: WitnessRecord | null;
}

/** The last checkpoint of a member's log this host cosigned (times ISO). */
export interface CosignedCheckpoint {
  origin: string;
  size: number;
  /** Root hash, base64. */
  root: string;
  /** The member's signed note with this host's cosignature line. */
  note: string;
  at: string;
}

/** Why a member's log is flagged: set when it offered a checkpoint inconsistent with the last one cosigned; cleared only by an operator. */
export interface WitnessFlag {
  /** A bounded reason (the metric's label): see `mesh/host/witness.ts`. */
  reason: string;
  detail: string;
  at: string;
}

/** What the host, as witness, keeps per member key (kept across deregistration and registration). */
export interface WitnessRecord {
  /** The verifier key of the member's log, pinned at its first registration or offer. */
  logKey: string | null;
  cosigned: CosignedCheckpoint | null;
  flag: WitnessFlag | null;
}

/** A member just evicted (for the log and the metrics). */
export interface Eviction {
  pubkey: string;
  sessionId: string;
}

/**
 * The registry. Every decision that matters is taken by the store in one statement against its
 * own clock (the database's for Postgres), so host replicas sharing a store agree: a heartbeat
 * succeeds only for a registered session whose deadline has not passed, and it moves the
 * deadline `ttlMs` on. Nothing a replica keeps in memory changes an answer (the SQLite registry,
 * which serves a single host, keeps spent NIP-98 tokens in memory; Postgres keeps them in a table).
 */
export interface MeshRegistry extends TokenLedger {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /** Create the tables when absent. */
  open(): Promise<void>;
  /** Register (or register again) `member` under a new session id; an older session of the same key ends. */
  register(member: Registration, sessionId: string, ttlMs: number): Promise<MemberRecord>;
  /** Record a heartbeat; false when the session is unknown, belongs to another key, is evicted or has just missed its deadline. */
  heartbeat(sessionId: string, pubkey: string, beat: Beat, ttlMs: number): Promise<boolean>;
  /** End a session; false when there was none for this key. */
  deregister(sessionId: string, pubkey: string): Promise<boolean>;
  /** Mark every registered member past its deadline evicted, forget evicted members after `forgetMs`, and return those evicted now. */
  evictExpired(forgetMs: number): Promise<Eviction[]>;
  /**
   * Every member, oldest registration first, as stored: call {@link evictExpired} first (the host
   * does, so that every eviction is logged and counted whoever notices it).
   */
  members(): Promise<MemberRecord[]>;
  /** The witness record of `pubkey`, if any. */
  witness(pubkey: string): Promise<WitnessRecord | undefined>;
  /** Pin `logKey` as the key of `pubkey`'s log unless a checkpoint was cosigned under a pinned key already; the record after. */
  pinLogKey(pubkey: string, logKey: string): Promise<WitnessRecord>;
  /**
   * Record `next` as the last checkpoint cosigned for `pubkey`, only if the last one is still
   * `previous` (null: none) and the member is not flagged; false when another call won.
   */
  recordCosigned(pubkey: string, previous: { size: number; root: string } | null, logKey: string, next: CosignedCheckpoint): Promise<boolean>;
  /** Flag `pubkey`'s log (a flag already set is kept: the first reason stands). */
  flagWitness(pubkey: string, flag: WitnessFlag): Promise<void>;
  /** Forget everything witnessed of `pubkey` (the operator's reset); false when there was nothing. */
  clearWitness(pubkey: string): Promise<boolean>;
  /** How many member keys are flagged. */
  flaggedCount(): Promise<number>;
  /** Record that a host replica answers at `url` for the next `ttlMs`. */
  announceReplica(url: string, ttlMs: number): Promise<void>;
  /** The API URLs of the host replicas seen within their announced time. */
  replicas(): Promise<string[]>;
  close(): Promise<void>;
}

/** The registry cannot answer (its database is unreachable or failed); the routes answer 503. */
export class RegistryUnavailableError extends Error {
  override name = 'RegistryUnavailableError';
}

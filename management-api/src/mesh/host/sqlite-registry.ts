// The member registry in one SQLite file on the state volume (one host process), times in ms from an injected clock.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { ReplayCache } from '../replay-cache.js';
import { toWitness, WITNESS_COLUMNS, type WitnessRow } from './witness-row.js';
import type { Beat, CosignedCheckpoint, Eviction, MemberRecord, MeshRegistry, Registration, WitnessFlag, WitnessRecord } from './registry.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mesh_members (
  pubkey TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  api_endpoint TEXT NOT NULL,
  image_hash TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  adapters TEXT NOT NULL,
  contract_versions TEXT NOT NULL,
  health TEXT,
  capacity TEXT NOT NULL,
  registered_at INTEGER NOT NULL,
  last_heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  evicted_at INTEGER,
  name TEXT
);
CREATE INDEX IF NOT EXISTS mesh_members_expiry ON mesh_members (state, expires_at);
CREATE TABLE IF NOT EXISTS mesh_replicas (url TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
-- The witness's record per member key: apart from mesh_members, so neither deregistering nor
-- registering again clears a flag or forgets the last checkpoint cosigned.
CREATE TABLE IF NOT EXISTS mesh_witness (
  pubkey TEXT PRIMARY KEY,
  log_key TEXT,
  origin TEXT,
  size INTEGER,
  root TEXT,
  note TEXT,
  cosigned_at INTEGER,
  flag_reason TEXT,
  flag_detail TEXT,
  flagged_at INTEGER
);
`;

/** SQLite answers sizes and times (milliseconds) as numbers. */
type SqliteWitnessRow = WitnessRow<number, number>;
const SQLITE_VALUES = { size: (n: number) => n, iso: (ms: number) => new Date(ms).toISOString() };

interface Row extends Partial<SqliteWitnessRow> {
  pubkey: string;
  session_id: string;
  state: 'registered' | 'evicted';
  api_endpoint: string;
  image_hash: string;
  manifest_sha256: string;
  adapters: string;
  contract_versions: string;
  health: string | null;
  capacity: string;
  registered_at: number;
  last_heartbeat_at: number;
  evicted_at: number | null;
  name: string | null;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function toRecord(r: Row): MemberRecord {
  return {
    pubkey: r.pubkey,
    sessionId: r.session_id,
    state: r.state,
    apiEndpoint: r.api_endpoint,
    imageHash: r.image_hash,
    manifestSha256: r.manifest_sha256,
    adapters: JSON.parse(r.adapters) as Record<string, string>,
    contractVersions: JSON.parse(r.contract_versions) as Record<string, string>,
    health: r.health === null ? null : (JSON.parse(r.health) as Record<string, unknown>),
    capacity: JSON.parse(r.capacity) as MemberRecord['capacity'],
    registeredAt: iso(r.registered_at),
    lastHeartbeatAt: iso(r.last_heartbeat_at),
    evictedAt: r.evicted_at === null ? null : iso(r.evicted_at),
    name: r.name,
    witness: toWitness(r, SQLITE_VALUES),
  };
}

/** The SQLite registry. `clock` is the host's (tests inject one to pass the eviction deadline without waiting). */
export class SqliteRegistry implements MeshRegistry {
  readonly kind = 'sqlite';
  #db: Database | undefined;
  #s: Record<string, Statement> = {};
  // Spent NIP-98 tokens live in memory: a SQLite registry serves one host process (replicas share a
  // Postgres registry, which keeps them in a table), and writing each token would double the
  // writes of every heartbeat for a record that is useless after 60 s.
  readonly #replays = new ReplayCache(100_000);

  constructor(
    private readonly file: string,
    private readonly clock: () => Date,
  ) {}

  async open(): Promise<void> {
    mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const db = new BetterSqlite3(this.file, { timeout: 5_000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(SCHEMA);
    // A registry file written before members reported their box name.
    if (!(db.pragma('table_info(mesh_members)') as Array<{ name: string }>).some((c) => c.name === 'name'))
      db.exec('ALTER TABLE mesh_members ADD COLUMN name TEXT');
    this.#db = db;
    this.#s = {
      register:
        db.prepare(`INSERT INTO mesh_members (pubkey, session_id, state, api_endpoint, image_hash, manifest_sha256, adapters, contract_versions, health, capacity, registered_at, last_heartbeat_at, expires_at, evicted_at, name)
        VALUES (@pubkey, @sessionId, 'registered', @apiEndpoint, @imageHash, @manifestSha256, @adapters, @contractVersions, NULL, @capacity, @now, @now, @expires, NULL, @name)
        ON CONFLICT (pubkey) DO UPDATE SET session_id = excluded.session_id, state = 'registered', api_endpoint = excluded.api_endpoint, image_hash = excluded.image_hash,
          manifest_sha256 = excluded.manifest_sha256, adapters = excluded.adapters, contract_versions = excluded.contract_versions, health = NULL, capacity = excluded.capacity,
          registered_at = excluded.registered_at, last_heartbeat_at = excluded.last_heartbeat_at, expires_at = excluded.expires_at, evicted_at = NULL, name = excluded.name
        RETURNING *`),
      beat: db.prepare(`UPDATE mesh_members SET health = @health, capacity = @capacity, last_heartbeat_at = @now, expires_at = @expires
        WHERE session_id = @sessionId AND pubkey = @pubkey AND state = 'registered' AND expires_at >= @now RETURNING pubkey`),
      deregister: db.prepare(`DELETE FROM mesh_members WHERE session_id = ? AND pubkey = ? RETURNING pubkey`),
      evict: db.prepare(
        `UPDATE mesh_members SET state = 'evicted', evicted_at = @now WHERE state = 'registered' AND expires_at < @now RETURNING pubkey, session_id`,
      ),
      forget: db.prepare(`DELETE FROM mesh_members WHERE state = 'evicted' AND evicted_at < @before`),
      members: db.prepare(
        `SELECT m.*, ${WITNESS_COLUMNS} FROM mesh_members m LEFT JOIN mesh_witness w ON w.pubkey = m.pubkey ORDER BY m.registered_at, m.pubkey`,
      ),
      witness: db.prepare(`SELECT ${WITNESS_COLUMNS} FROM mesh_witness w WHERE w.pubkey = ?`),
      pin: db.prepare(
        `INSERT INTO mesh_witness (pubkey, log_key) VALUES (@pubkey, @logKey) ON CONFLICT (pubkey) DO UPDATE SET log_key = excluded.log_key WHERE mesh_witness.size IS NULL`,
      ),
      cosigned:
        db.prepare(`INSERT INTO mesh_witness (pubkey, log_key, origin, size, root, note, cosigned_at) VALUES (@pubkey, @logKey, @origin, @size, @root, @note, @at)
        ON CONFLICT (pubkey) DO UPDATE SET log_key = excluded.log_key, origin = excluded.origin, size = excluded.size, root = excluded.root, note = excluded.note, cosigned_at = excluded.cosigned_at
        WHERE mesh_witness.flag_reason IS NULL AND ((@prevSize IS NULL AND mesh_witness.size IS NULL) OR (mesh_witness.size = @prevSize AND mesh_witness.root = @prevRoot))
        RETURNING pubkey`),
      flag: db.prepare(`INSERT INTO mesh_witness (pubkey, flag_reason, flag_detail, flagged_at) VALUES (@pubkey, @reason, @detail, @at)
        ON CONFLICT (pubkey) DO UPDATE SET flag_reason = excluded.flag_reason, flag_detail = excluded.flag_detail, flagged_at = excluded.flagged_at WHERE mesh_witness.flag_reason IS NULL`),
      clearWitness: db.prepare(`DELETE FROM mesh_witness WHERE pubkey = ? RETURNING pubkey`),
      flagged: db.prepare(`SELECT count(*) AS n FROM mesh_witness WHERE flag_reason IS NOT NULL`),
      announce: db.prepare(
        `INSERT INTO mesh_replicas (url, expires_at) VALUES (@url, @expires) ON CONFLICT (url) DO UPDATE SET expires_at = excluded.expires_at`,
      ),
      replicas: db.prepare(`SELECT url FROM mesh_replicas WHERE expires_at >= ? ORDER BY url`),
    };
  }

  #stmt(name: string): Statement {
    const s = this.#s[name];
    if (!s) throw new Error(`the mesh registry ${this.file} is not open`);
    return s;
  }

  #now(): number {
    return this.clock().getTime();
  }

  async register(m: Registration, sessionId: string, ttlMs: number): Promise<MemberRecord> {
    const now = this.#now();
    const row = this.#stmt('register').get({
      pubkey: m.pubkey,
      sessionId,
      apiEndpoint: m.apiEndpoint,
      imageHash: m.imageHash,
      manifestSha256: m.manifestSha256,
      adapters: JSON.stringify(m.adapters),
      contractVersions: JSON.stringify(m.contractVersions),
      capacity: JSON.stringify(m.capacity),
      name: m.name ?? null,
      now,
      expires: now + ttlMs,
    }) as Row;
    return toRecord(row);
  }

  async heartbeat(sessionId: string, pubkey: string, beat: Beat, ttlMs: number): Promise<boolean> {
    const now = this.#now();
    return (
      this.#stmt('beat').get({ sessionId, pubkey, health: JSON.stringify(beat.health), capacity: JSON.stringify(beat.capacity), now, expires: now + ttlMs }) !==
      undefined
    );
  }

  async deregister(sessionId: string, pubkey: string): Promise<boolean> {
    return this.#stmt('deregister').get(sessionId, pubkey) !== undefined;
  }

  async evictExpired(forgetMs: number): Promise<Eviction[]> {
    const now = this.#now();
    const evicted = this.#stmt('evict').all({ now }) as Array<{ pubkey: string; session_id: string }>;
    this.#stmt('forget').run({ before: now - forgetMs });
    return evicted.map((r) => ({ pubkey: r.pubkey, sessionId: r.session_id }));
  }

  async members(): Promise<MemberRecord[]> {
    return (this.#stmt('members').all() as Row[]).map(toRecord);
  }

  async witness(pubkey: string): Promise<WitnessRecord | undefined> {
    const row = this.#stmt('witness').get(pubkey) as SqliteWitnessRow | undefined;
    return row ? (toWitness(row, SQLITE_VALUES) ?? undefined) : undefined;
  }

  async pinLogKey(pubkey: string, logKey: string): Promise<WitnessRecord> {
    this.#stmt('pin').run({ pubkey, logKey });
    return (await this.witness(pubkey))!;
  }

  async recordCosigned(pubkey: string, previous: { size: number; root: string } | null, logKey: string, next: CosignedCheckpoint): Promise<boolean> {
    const row = this.#stmt('cosigned').get({
      pubkey,
      logKey,
      origin: next.origin,
      size: next.size,
      root: next.root,
      note: next.note,
      at: Date.parse(next.at),
      prevSize: previous?.size ?? null,
      prevRoot: previous?.root ?? null,
    });
    return row !== undefined;
  }

  async flagWitness(pubkey: string, flag: WitnessFlag): Promise<void> {
    this.#stmt('flag').run({ pubkey, reason: flag.reason, detail: flag.detail, at: Date.parse(flag.at) });
  }

  async clearWitness(pubkey: string): Promise<boolean> {
    return this.#stmt('clearWitness').get(pubkey) !== undefined;
  }

  async flaggedCount(): Promise<number> {
    return (this.#stmt('flagged').get() as { n: number }).n;
  }

  admit(id: string, expiresAt: number, now: number): 'fresh' | 'replayed' | 'full' {
    return this.#replays.admit(id, expiresAt, now);
  }

  async announceReplica(url: string, ttlMs: number): Promise<void> {
    this.#stmt('announce').run({ url, expires: this.#now() + ttlMs });
  }

  async replicas(): Promise<string[]> {
    return (this.#stmt('replicas').all(this.#now()) as Array<{ url: string }>).map((r) => r.url);
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
    this.#s = {};
  }
}

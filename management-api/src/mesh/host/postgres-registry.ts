// The member registry in a shared Postgres database: several host replicas, one mesh. Deadlines use the database's clock.
import pg from 'pg';
import { scrubSecrets } from '../../secrets/redact.js';
import { toWitness, WITNESS_COLUMNS, type WitnessRow } from './witness-row.js';
import {
  RegistryUnavailableError,
  type Beat,
  type CosignedCheckpoint,
  type Eviction,
  type MemberRecord,
  type MeshRegistry,
  type Registration,
  type WitnessFlag,
  type WitnessRecord,
} from './registry.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS mesh_members (
  pubkey TEXT PRIMARY KEY,
  session_id TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL,
  api_endpoint TEXT NOT NULL,
  image_hash TEXT NOT NULL,
  manifest_sha256 TEXT NOT NULL,
  adapters JSONB NOT NULL,
  contract_versions JSONB NOT NULL,
  health JSONB,
  capacity JSONB NOT NULL,
  registered_at TIMESTAMPTZ NOT NULL,
  last_heartbeat_at TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  evicted_at TIMESTAMPTZ
);
-- Registries created before members reported their box name.
ALTER TABLE mesh_members ADD COLUMN IF NOT EXISTS name TEXT;
CREATE INDEX IF NOT EXISTS mesh_members_expiry ON mesh_members (state, expires_at);
CREATE TABLE IF NOT EXISTS mesh_tokens (sig TEXT PRIMARY KEY, expires_at BIGINT NOT NULL);
CREATE INDEX IF NOT EXISTS mesh_tokens_expiry ON mesh_tokens (expires_at);
CREATE TABLE IF NOT EXISTS mesh_replicas (url TEXT PRIMARY KEY, expires_at TIMESTAMPTZ NOT NULL);
-- The witness's record per member key: apart from mesh_members, so neither deregistering nor
-- registering again clears a flag or forgets the last checkpoint cosigned.
CREATE TABLE IF NOT EXISTS mesh_witness (
  pubkey TEXT PRIMARY KEY,
  log_key TEXT,
  origin TEXT,
  size BIGINT,
  root TEXT,
  note TEXT,
  cosigned_at TIMESTAMPTZ,
  flag_reason TEXT,
  flag_detail TEXT,
  flagged_at TIMESTAMPTZ
);
`;

/** node-postgres answers a BIGINT as a string and a TIMESTAMPTZ as a Date. */
type PostgresWitnessRow = WitnessRow<string, Date>;
const POSTGRES_VALUES = { size: (n: string) => Number(n), iso: (at: Date) => at.toISOString() };

// Two replicas starting at once would race on CREATE TABLE IF NOT EXISTS (a unique violation in
// pg_type); one advisory lock, held for the migration's transaction, serialises them.
const MIGRATION_LOCK = 0x6d657368; // 'mesh'

const ttl = (param: string): string => `now() + (${param}::double precision * interval '1 millisecond')`;

interface Row extends Partial<PostgresWitnessRow> {
  pubkey: string;
  session_id: string;
  state: 'registered' | 'evicted';
  api_endpoint: string;
  image_hash: string;
  manifest_sha256: string;
  adapters: Record<string, string>;
  contract_versions: Record<string, string>;
  health: Record<string, unknown> | null;
  capacity: MemberRecord['capacity'];
  registered_at: Date;
  last_heartbeat_at: Date;
  evicted_at: Date | null;
  name: string | null;
}

function toRecord(r: Row): MemberRecord {
  return {
    pubkey: r.pubkey,
    sessionId: r.session_id,
    state: r.state,
    apiEndpoint: r.api_endpoint,
    imageHash: r.image_hash,
    manifestSha256: r.manifest_sha256,
    adapters: r.adapters,
    contractVersions: r.contract_versions,
    health: r.health,
    capacity: r.capacity,
    registeredAt: r.registered_at.toISOString(),
    lastHeartbeatAt: r.last_heartbeat_at.toISOString(),
    evictedAt: r.evicted_at?.toISOString() ?? null,
    name: r.name,
    witness: toWitness(r, POSTGRES_VALUES),
  };
}

/** The Postgres registry. Every operation is one statement (its own transaction), decided by the database's `now()`. */
export class PostgresRegistry implements MeshRegistry {
  readonly kind = 'postgres';
  readonly #pool: pg.Pool;

  constructor(connectionString: string, options: { max?: number } = {}) {
    this.#pool = new pg.Pool({ connectionString, max: options.max ?? 10, connectionTimeoutMillis: 5_000 });
    // An idle client that loses its connection must not crash the process; the next query reports it.
    this.#pool.on('error', () => {});
  }

  async #query<R extends pg.QueryResultRow>(what: string, text: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    try {
      return await this.#pool.query<R>(text, values);
    } catch (err) {
      throw new RegistryUnavailableError(
        `mesh registry (postgres) ${what} failed: ${scrubSecrets((err as Error).message || String((err as { code?: string }).code ?? err))}`,
        { cause: err },
      );
    }
  }

  async open(): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (err) {
      throw new RegistryUnavailableError(`mesh registry (postgres): cannot connect: ${scrubSecrets((err as Error).message)}`, { cause: err });
    }
    try {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${MIGRATION_LOCK}); ${SCHEMA} COMMIT;`);
      client.release();
    } catch (err) {
      // Not back to the pool: its transaction is aborted.
      client.release(err as Error);
      throw new RegistryUnavailableError(`mesh registry (postgres): creating its tables failed: ${scrubSecrets((err as Error).message)}`, { cause: err });
    }
  }

  async register(m: Registration, sessionId: string, ttlMs: number): Promise<MemberRecord> {
    const r = await this.#query<Row>(
      'register',
      `INSERT INTO mesh_members (pubkey, session_id, state, api_endpoint, image_hash, manifest_sha256, adapters, contract_versions, health, capacity, registered_at, last_heartbeat_at, expires_at, evicted_at, name)
       VALUES ($1, $2, 'registered', $3, $4, $5, $6, $7, NULL, $8, now(), now(), ${ttl('$9')}, NULL, $10)
       ON CONFLICT (pubkey) DO UPDATE SET session_id = excluded.session_id, state = 'registered', api_endpoint = excluded.api_endpoint, image_hash = excluded.image_hash,
         manifest_sha256 = excluded.manifest_sha256, adapters = excluded.adapters, contract_versions = excluded.contract_versions, health = NULL, capacity = excluded.capacity,
         registered_at = excluded.registered_at, last_heartbeat_at = excluded.last_heartbeat_at, expires_at = excluded.expires_at, evicted_at = NULL, name = excluded.name
       RETURNING *`,
      [
        m.pubkey,
        sessionId,
        m.apiEndpoint,
        m.imageHash,
        m.manifestSha256,
        JSON.stringify(m.adapters),
        JSON.stringify(m.contractVersions),
        JSON.stringify(m.capacity),
        ttlMs,
        m.name ?? null,
      ],
    );
    return toRecord(r.rows[0]!);
  }

  async heartbeat(sessionId: string, pubkey: string, beat: Beat, ttlMs: number): Promise<boolean> {
    // Under READ COMMITTED a concurrent eviction of this row is re-checked after its lock: exactly one of the two wins.
    const r = await this.#query(
      'heartbeat',
      `UPDATE mesh_members SET health = $3, capacity = $4, last_heartbeat_at = now(), expires_at = ${ttl('$5')}
       WHERE session_id = $1 AND pubkey = $2 AND state = 'registered' AND expires_at >= now() RETURNING pubkey`,
      [sessionId, pubkey, JSON.stringify(beat.health), JSON.stringify(beat.capacity), ttlMs],
    );
    return r.rowCount === 1;
  }

  async deregister(sessionId: string, pubkey: string): Promise<boolean> {
    const r = await this.#query('deregister', `DELETE FROM mesh_members WHERE session_id = $1 AND pubkey = $2`, [sessionId, pubkey]);
    return r.rowCount === 1;
  }

  async evictExpired(forgetMs: number): Promise<Eviction[]> {
    const r = await this.#query<{ pubkey: string; session_id: string }>(
      'eviction',
      `WITH forgotten AS (DELETE FROM mesh_members WHERE state = 'evicted' AND evicted_at < now() - ($1::double precision * interval '1 millisecond'))
       UPDATE mesh_members SET state = 'evicted', evicted_at = now() WHERE state = 'registered' AND expires_at < now() RETURNING pubkey, session_id`,
      [forgetMs],
    );
    return r.rows.map((row) => ({ pubkey: row.pubkey, sessionId: row.session_id }));
  }

  async members(): Promise<MemberRecord[]> {
    const r = await this.#query<Row>(
      'members',
      `SELECT m.*, ${WITNESS_COLUMNS} FROM mesh_members m LEFT JOIN mesh_witness w ON w.pubkey = m.pubkey ORDER BY m.registered_at, m.pubkey`,
    );
    return r.rows.map(toRecord);
  }

  async witness(pubkey: string): Promise<WitnessRecord | undefined> {
    const r = await this.#query<PostgresWitnessRow>('witness read', `SELECT ${WITNESS_COLUMNS} FROM mesh_witness w WHERE w.pubkey = $1`, [pubkey]);
    return r.rows[0] ? (toWitness(r.rows[0], POSTGRES_VALUES) ?? undefined) : undefined;
  }

  async pinLogKey(pubkey: string, logKey: string): Promise<WitnessRecord> {
    await this.#query(
      'witness key',
      `INSERT INTO mesh_witness (pubkey, log_key) VALUES ($1, $2) ON CONFLICT (pubkey) DO UPDATE SET log_key = excluded.log_key WHERE mesh_witness.size IS NULL`,
      [pubkey, logKey],
    );
    return (await this.witness(pubkey))!;
  }

  async recordCosigned(pubkey: string, previous: { size: number; root: string } | null, logKey: string, next: CosignedCheckpoint): Promise<boolean> {
    // Compare and set: of two replicas cosigning from the same previous checkpoint, one records.
    const r = await this.#query(
      'witness cosignature',
      `INSERT INTO mesh_witness (pubkey, log_key, origin, size, root, note, cosigned_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (pubkey) DO UPDATE SET log_key = excluded.log_key, origin = excluded.origin, size = excluded.size, root = excluded.root, note = excluded.note, cosigned_at = excluded.cosigned_at
       WHERE mesh_witness.flag_reason IS NULL AND (($8::bigint IS NULL AND mesh_witness.size IS NULL) OR (mesh_witness.size = $8::bigint AND mesh_witness.root = $9))
       RETURNING pubkey`,
      [pubkey, logKey, next.origin, next.size, next.root, next.note, new Date(next.at), previous?.size ?? null, previous?.root ?? null],
    );
    return r.rowCount === 1;
  }

  async flagWitness(pubkey: string, flag: WitnessFlag): Promise<void> {
    await this.#query(
      'witness flag',
      `INSERT INTO mesh_witness (pubkey, flag_reason, flag_detail, flagged_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (pubkey) DO UPDATE SET flag_reason = excluded.flag_reason, flag_detail = excluded.flag_detail, flagged_at = excluded.flagged_at WHERE mesh_witness.flag_reason IS NULL`,
      [pubkey, flag.reason, flag.detail, new Date(flag.at)],
    );
  }

  async clearWitness(pubkey: string): Promise<boolean> {
    const r = await this.#query('witness reset', `DELETE FROM mesh_witness WHERE pubkey = $1`, [pubkey]);
    return r.rowCount === 1;
  }

  async flaggedCount(): Promise<number> {
    const r = await this.#query<{ n: string }>('witness count', `SELECT count(*) AS n FROM mesh_witness WHERE flag_reason IS NOT NULL`);
    return Number(r.rows[0]?.n ?? 0);
  }

  async admit(id: string, expiresAt: number, now: number): Promise<'fresh' | 'replayed'> {
    // The insert wins for exactly one replica; an expired row with the same signature is reused.
    const r = await this.#query(
      'token check',
      `WITH swept AS (DELETE FROM mesh_tokens WHERE expires_at < $3 AND sig <> $1)
       INSERT INTO mesh_tokens (sig, expires_at) VALUES ($1, $2) ON CONFLICT (sig) DO UPDATE SET expires_at = excluded.expires_at WHERE mesh_tokens.expires_at < $3 RETURNING sig`,
      [id, expiresAt, now],
    );
    return r.rowCount === 1 ? 'fresh' : 'replayed';
  }

  async announceReplica(url: string, ttlMs: number): Promise<void> {
    await this.#query(
      'replica announcement',
      `INSERT INTO mesh_replicas (url, expires_at) VALUES ($1, ${ttl('$2')}) ON CONFLICT (url) DO UPDATE SET expires_at = excluded.expires_at`,
      [url, ttlMs],
    );
  }

  async replicas(): Promise<string[]> {
    const r = await this.#query<{ url: string }>('replica list', `SELECT url FROM mesh_replicas WHERE expires_at >= now() ORDER BY url`);
    return r.rows.map((row) => row.url);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

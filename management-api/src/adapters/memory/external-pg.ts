// memory/external-pg: vector memory in a shared Postgres with pgvector (HNSW over cosine distance, namespaces by column).
import pg from 'pg';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterInputError, AdapterNotFoundError, AdapterUnavailableError } from '../../adapter-errors.js';
import { scrubSecrets } from '../../secrets/redact.js';
import type { MemoryAdapter, MemoryHit, MemoryQuery, MemoryRecord, MemorySummary, NewMemory } from './memory-adapter.js';
import { mapPage } from '../cursor-pager.js';
import { checkId, checkK, checkMetadata, checkNamespace, checkText, checkVector, decodeCursor, MEMORY_PAGER, pageLimit } from './memory-input.js';
import { connectionString, describeTarget, parseVector, pgFailure, vectorLiteral } from './pg-connection.js';
import { ensureSchema, hasIterativeScan, quoteIdent } from './pg-schema.js';
import { embedText } from './text-embedder.js';

/** This implementation's registry name. */
export const ADAPTER = 'memory/external-pg';
export { CONTRACT_VERSION } from './memory-adapter.js';

/**
 * HNSW candidate list per search. pgvector's default (40) is below the largest k (100); 200 keeps
 * recall@10 ≥ 0.95 on the benchmark's clustered set (docs/developer/adapters.md).
 */
export const PG_EF_SEARCH = 200;

/** A Postgres memory adapter. */
export function create(context: AdapterContext<'memory'>): ExternalPgMemory {
  return new ExternalPgMemory(context);
}

interface Row {
  namespace: string;
  id: string;
  seq: string;
  text: string;
  metadata: Record<string, unknown>;
  embedding: string;
  created_at: Date;
  score: number;
}

/** Vector memory in Postgres. The connection string is read at connect and never logged. */
export class ExternalPgMemory implements MemoryAdapter {
  readonly dimension: number;
  readonly #table: string;
  #pool: pg.Pool | undefined;
  #permanent: string | undefined;

  constructor(private readonly context: AdapterContext<'memory'>) {
    this.dimension = context.settings.dimension;
    this.#table = quoteIdent(context.settings.table);
  }

  async connect(signal: AbortSignal): Promise<void> {
    await this.#release();
    const connection = await connectionString(this.context, this.context.logger);
    const target = describeTarget(connection);
    const pool = new pg.Pool({
      connectionString: connection,
      max: 4,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      application_name: 'agentbox-memory',
    });
    // An idle client losing its server emits here; without a listener the process would crash.
    pool.on('error', (err) =>
      this.context.logger.warn({ event: 'MemoryPgClientError', target, error: scrubSecrets(err.message) }, 'an idle Postgres connection failed'),
    );
    const onAbort = (): void => void pool.end().catch(() => undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const schema = await ensureSchema(client, this.context.settings.table, this.dimension);
      if (!schema.ok) {
        this.#permanent = schema.permanent;
        client.release();
        await pool.end();
        return;
      }
      // Session settings for every pooled connection: enough candidates for k ≤ 100, and (pgvector
      // 0.8+) iterative scans, so a namespace filter cannot cut the answer short.
      const settings = [`SET hnsw.ef_search = ${PG_EF_SEARCH}`, ...(hasIterativeScan(schema.pgvector) ? ['SET hnsw.iterative_scan = strict_order'] : [])];
      pool.on('connect', (c) => void c.query(settings.join('; ')).catch(() => undefined));
      await client.query(settings.join('; '));
      client.release();
      this.#pool = pool;
    } catch (err) {
      client?.release(true);
      await pool.end().catch(() => undefined);
      throw new Error(`cannot use Postgres at ${target}: ${scrubSecrets((err as Error).message || String((err as { code?: string }).code ?? err))}`);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async health(_signal: AbortSignal): Promise<SlotHealth> {
    if (this.#permanent) return { state: 'degraded', reason: this.#permanent, permanent: true };
    if (!this.#pool) return { state: 'degraded', reason: 'not-connected' };
    try {
      await this.#pool.query('SELECT 1');
      return { state: 'healthy' };
    } catch (err) {
      return { state: 'degraded', reason: `unreachable: ${scrubSecrets((err as Error).message)}` };
    }
  }

  async close(): Promise<void> {
    await this.#release();
  }

  async store(namespace: string, memory: NewMemory): Promise<{ id: string }> {
    checkNamespace(namespace);
    const id = checkId(memory.id);
    const text = checkText(memory.text);
    const metadata = checkMetadata(memory.metadata);
    const vector = memory.vector !== undefined ? checkVector(memory.vector, this.dimension) : embedText(text, this.dimension);
    await this.#query(
      'store',
      `INSERT INTO ${this.#table} (namespace, id, text, metadata, embedding, created_at) VALUES ($1, $2, $3, $4::jsonb, $5::vector, $6)
       ON CONFLICT (namespace, id) DO UPDATE SET text = EXCLUDED.text, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding, created_at = EXCLUDED.created_at`,
      [namespace, id, text, metadata, vectorLiteral(vector), new Date().toISOString()],
    );
    return { id };
  }

  async search(namespace: string, query: MemoryQuery): Promise<MemoryHit[]> {
    checkNamespace(namespace);
    const k = checkK(query.k);
    const literal = vectorLiteral(this.#queryVector(query));
    const sql = (order: string) =>
      `SELECT id, text, metadata, 1 - (embedding <=> $2::vector) AS score FROM ${this.#table} WHERE namespace = $1 ORDER BY ${order} LIMIT $3`;
    let rows = await this.#query('search', sql('embedding <=> $2::vector'), [namespace, literal, k]);
    if (rows.length < k) {
      // An index scan can come back short (filtered, or pgvector before 0.8). If the namespace holds
      // more, answer exactly: the "+ 0" makes the ordering unusable by the index, so it is a scan.
      const count = await this.#query('search', `SELECT count(*)::int AS score FROM ${this.#table} WHERE namespace = $1`, [namespace]);
      if ((count[0]?.score ?? 0) > rows.length) rows = await this.#query('search', sql('(embedding <=> $2::vector) + 0'), [namespace, literal, k]);
    }
    return rows.map((r) => ({ id: r.id, score: Number(r.score), text: r.text, metadata: r.metadata }));
  }

  async retrieve(namespace: string, id: string): Promise<MemoryRecord> {
    checkNamespace(namespace);
    const rows = await this.#query(
      'retrieve',
      `SELECT namespace, id, text, metadata, embedding::text AS embedding, created_at FROM ${this.#table} WHERE namespace = $1 AND id = $2`,
      [namespace, id],
    );
    const row = rows[0];
    if (!row) throw new AdapterNotFoundError(`memory "${id}" in namespace "${namespace}"`);
    return {
      id: row.id,
      namespace: row.namespace,
      text: row.text,
      metadata: row.metadata,
      vector: parseVector(row.embedding),
      createdAt: row.created_at.toISOString(),
    };
  }

  async delete(namespace: string, id: string): Promise<boolean> {
    checkNamespace(namespace);
    const rows = await this.#query('delete', `DELETE FROM ${this.#table} WHERE namespace = $1 AND id = $2 RETURNING id`, [namespace, id]);
    return rows.length > 0;
  }

  async list(namespace: string, request: PageRequest): Promise<Page<MemorySummary>> {
    checkNamespace(namespace);
    const after = decodeCursor(request.cursor);
    const limit = pageLimit(request.limit);
    const rows = await this.#query(
      'list',
      `SELECT seq, namespace, id, text, metadata, created_at FROM ${this.#table} WHERE namespace = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [namespace, after, limit + 1],
    );
    // seq is a bigserial: pg hands it over as a string.
    return mapPage(
      MEMORY_PAGER.page(rows, limit, (r) => Number(r.seq)),
      (r) => ({ id: r.id, namespace: r.namespace, text: r.text, metadata: r.metadata, createdAt: r.created_at.toISOString() }),
    );
  }

  #queryVector(query: MemoryQuery): Float32Array {
    if (query.vector !== undefined) return checkVector(query.vector, this.dimension);
    if (typeof query.text === 'string') return embedText(checkText(query.text), this.dimension);
    throw new AdapterInputError('a search needs text or a vector');
  }

  async #query(operation: string, sql: string, params: unknown[]): Promise<Row[]> {
    const pool = this.#pool;
    if (!pool) throw new AdapterUnavailableError('memory', this.#permanent ?? 'not connected to Postgres');
    try {
      return (await pool.query<Row>(sql, params)).rows;
    } catch (err) {
      throw pgFailure(err, operation);
    }
  }

  async #release(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#permanent = undefined;
    await pool?.end().catch(() => undefined);
  }
}

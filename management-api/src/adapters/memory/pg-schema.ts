// external-pg's schema: the vector extension, the table with its HNSW and namespace indexes, and the checks that name the fix.
import type { PoolClient } from 'pg';

/** What the schema check found: ready, or a problem reconnecting cannot fix. */
export type SchemaResult = { ok: true; pgvector: string } | { ok: false; permanent: string };

/** The table name, quoted (the manifest schema restricts it to `[a-z_][a-z0-9_]*`). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Create what is missing — `CREATE EXTENSION IF NOT EXISTS vector`, the table with a `vector(dim)`
 * column, an HNSW index over cosine distance and a (namespace, seq) index — under an advisory lock,
 * so boxes sharing the database do not race each other's DDL. A server without pgvector, a role
 * that may not create it, or a table of another dimension is reported, not retried.
 */
export async function ensureSchema(client: PoolClient, table: string, dimension: number): Promise<SchemaResult> {
  const available = await client.query<{ installed_version: string | null }>(`SELECT installed_version FROM pg_available_extensions WHERE name = 'vector'`);
  if (available.rowCount === 0) {
    const version = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
    const major = Math.floor(Number(version.rows[0]?.v ?? '0') / 10_000);
    return {
      ok: false,
      permanent: `the Postgres server lacks the pgvector extension: install postgresql-${major || '<version>'}-pgvector (or use a server with it) and run CREATE EXTENSION vector`,
    };
  }
  const t = quoteIdent(table);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`agentbox-memory:${table}`]);
    if (!available.rows[0]!.installed_version) {
      try {
        await client.query('CREATE EXTENSION IF NOT EXISTS vector');
      } catch (err) {
        if ((err as { code?: string }).code !== '42501') throw err;
        await client.query('ROLLBACK');
        return {
          ok: false,
          permanent:
            'the database role may not create the pgvector extension: ask the database owner or a superuser to run CREATE EXTENSION vector in this database',
        };
      }
    }
    await client.query(`CREATE TABLE IF NOT EXISTS ${t} (
      namespace text NOT NULL,
      id text NOT NULL,
      seq bigserial NOT NULL,
      text text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      embedding vector(${dimension}) NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (namespace, id))`);
    await client.query(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${table}_embedding_hnsw`)} ON ${t} USING hnsw (embedding vector_cosine_ops)`);
    await client.query(`CREATE INDEX IF NOT EXISTS ${quoteIdent(`${table}_namespace_seq`)} ON ${t} (namespace, seq)`);
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
  const column = await client.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'embedding'`,
    [t],
  );
  const type = column.rows[0]?.type;
  if (type !== `vector(${dimension})`) {
    return {
      ok: false,
      permanent: `table ${table} stores ${type ?? 'no embedding column'} but integrations.memory.dimension is ${dimension}: set dimension to match, or name another table in integrations.memory.table`,
    };
  }
  const version = await client.query<{ extversion: string }>(`SELECT extversion FROM pg_extension WHERE extname = 'vector'`);
  return { ok: true, pgvector: version.rows[0]?.extversion ?? 'unknown' };
}

/** Whether pgvector `version` has iterative index scans (0.8.0+), which keep filtered searches from coming back short. */
export function hasIterativeScan(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 0 || minor >= 8;
}

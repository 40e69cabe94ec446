// The local memory catalogue: records (text, metadata, vector) in SQLite, the source of truth the index is rebuilt from.
import Database from 'better-sqlite3';
import type { Page } from '../adapter.js';
import type { MemoryRecord, MemorySummary } from './memory-adapter.js';
import { mapPage } from '../cursor-pager.js';
import { MEMORY_PAGER } from './memory-input.js';

/** One row as stored. */
export interface CatalogRow {
  seq: number;
  namespace: string;
  id: string;
  text: string;
  metadata: string;
  vector: Buffer;
  created_at: string;
}

/** A record about to be written (metadata already serialised). */
export interface CatalogWrite {
  namespace: string;
  id: string;
  text: string;
  metadataJson: string;
  vector: Float32Array;
  createdAt: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS memories (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace TEXT NOT NULL,
  id TEXT NOT NULL,
  text TEXT NOT NULL,
  metadata TEXT NOT NULL,
  vector BLOB NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (namespace, id)
);
CREATE TABLE IF NOT EXISTS catalog_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** The SQLite file behind a local memory store. */
export class MemoryCatalog {
  readonly #db: Database.Database;

  /**
   * Open (and create) the catalogue at `file`. WAL with synchronous=NORMAL: a committed store survives
   * a crash of the process; a power cut may lose the last few (FULL would sync every store: ~5× slower here).
   */
  constructor(file: string) {
    this.#db = new Database(file);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('busy_timeout = 5000');
    this.#db.exec(SCHEMA);
  }

  /** The dimension recorded by the first open, recording `dimension` when there is none. */
  claimDimension(dimension: number): number {
    this.#db.prepare('INSERT OR IGNORE INTO catalog_meta (key, value) VALUES (?, ?)').run('dimension', String(dimension));
    const row = this.#db.prepare('SELECT value FROM catalog_meta WHERE key = ?').get('dimension') as { value: string };
    return Number(row.value);
  }

  /** Insert or replace a record; resolves the previous one's existence. */
  upsert(w: CatalogWrite): void {
    this.#db
      .prepare(
        `INSERT INTO memories (namespace, id, text, metadata, vector, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (namespace, id) DO UPDATE SET text = excluded.text, metadata = excluded.metadata, vector = excluded.vector, created_at = excluded.created_at`,
      )
      .run(w.namespace, w.id, w.text, w.metadataJson, Buffer.from(w.vector.buffer, w.vector.byteOffset, w.vector.byteLength), w.createdAt);
  }

  /** One row, or undefined. */
  get(namespace: string, id: string): CatalogRow | undefined {
    return this.#db.prepare('SELECT * FROM memories WHERE namespace = ? AND id = ?').get(namespace, id) as CatalogRow | undefined;
  }

  /** Rows of `ids` in one namespace, by id (for decorating search hits). */
  getMany(namespace: string, ids: readonly string[]): Map<string, CatalogRow> {
    const out = new Map<string, CatalogRow>();
    if (ids.length === 0) return out;
    const rows = this.#db
      .prepare(`SELECT * FROM memories WHERE namespace = ? AND id IN (${ids.map(() => '?').join(',')})`)
      .all(namespace, ...ids) as CatalogRow[];
    for (const row of rows) out.set(row.id, row);
    return out;
  }

  /** Delete a record; false when there was none. */
  delete(namespace: string, id: string): boolean {
    return this.#db.prepare('DELETE FROM memories WHERE namespace = ? AND id = ?').run(namespace, id).changes > 0;
  }

  /** A page of summaries in insertion order, after sequence `after`. */
  list(namespace: string, after: number, limit: number): Page<MemorySummary> {
    const rows = this.#db
      .prepare('SELECT seq, namespace, id, text, metadata, created_at FROM memories WHERE namespace = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(namespace, after, limit + 1) as Array<Omit<CatalogRow, 'vector'>>;
    return mapPage(
      MEMORY_PAGER.page(rows, limit, (r) => r.seq),
      (r) => ({ id: r.id, namespace: r.namespace, text: r.text, metadata: JSON.parse(r.metadata) as Record<string, unknown>, createdAt: r.created_at }),
    );
  }

  /** Every (namespace, id, vector), in insertion order, for rebuilding in-memory state at start. */
  *vectors(): Generator<{ namespace: string; id: string; vector: Float32Array }> {
    for (const row of this.#db.prepare('SELECT namespace, id, vector FROM memories ORDER BY seq').iterate() as Iterable<
      Pick<CatalogRow, 'namespace' | 'id' | 'vector'>
    >) {
      yield { namespace: row.namespace, id: row.id, vector: toFloat32(row.vector) };
    }
  }

  /** A cheap liveness query. */
  ping(): void {
    this.#db.prepare('SELECT 1').get();
  }

  close(): void {
    if (this.#db.open) this.#db.close();
  }
}

/** A stored row as the interface's record. */
export function toRecord(row: CatalogRow): MemoryRecord {
  return {
    id: row.id,
    namespace: row.namespace,
    text: row.text,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    vector: toFloat32(row.vector),
    createdAt: row.created_at,
  };
}

// A copy, not a view: SQLite's buffer may be unaligned for a Float32Array and is reused.
function toFloat32(blob: Buffer): Float32Array {
  const out = new Float32Array(blob.byteLength / 4);
  new Uint8Array(out.buffer).set(blob);
  return out;
}

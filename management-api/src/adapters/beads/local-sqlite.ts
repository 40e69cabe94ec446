// beads/local-sqlite: task receipts in one SQLite file (WAL) on the state volume.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AdapterContext, Page, PageRequest, SlotHealth } from '../adapter.js';
import { AdapterTimeoutError, AdapterUnavailableError } from '../../adapter-errors.js';
import { ApiError } from '../../errors.js';
import type { Bead, BeadOutcome, BeadQuery, BeadsAdapter, ClaimResult, NewBead } from './beads-adapter.js';
import { SqliteBeadsStore, type StoreOptions } from './sqlite-beads-store.js';
import { SCHEMA_VERSION } from './sqlite-schema.js';

/** This implementation's registry name. */
export const ADAPTER = 'beads/local-sqlite';
export { CONTRACT_VERSION } from './beads-adapter.js';

/** How long a write waits for another process's lock (several API processes may share the file). */
export const BUSY_TIMEOUT_MS = 5_000;

/** Where the database lives and how it is opened. */
export interface LocalSqliteOptions {
  file: string;
  clock?: () => Date;
  busyTimeoutMs?: number;
  synchronous?: StoreOptions['synchronous'];
}

/** The local beads store. */
export class LocalSqliteBeads implements BeadsAdapter {
  #store: SqliteBeadsStore | undefined;

  constructor(private readonly options: LocalSqliteOptions) {}

  /** (Re)open the database file, switch it to WAL and migrate it to the current schema. */
  async connect(signal: AbortSignal): Promise<void> {
    this.#store?.dispose();
    this.#store = undefined;
    await mkdir(path.dirname(this.options.file), { recursive: true, mode: 0o700 });
    signal.throwIfAborted();
    this.#store = new SqliteBeadsStore({
      file: this.options.file,
      clock: this.options.clock ?? (() => new Date()),
      busyTimeoutMs: this.options.busyTimeoutMs ?? BUSY_TIMEOUT_MS,
      synchronous: this.options.synchronous ?? 'NORMAL',
    });
  }

  /** A read of the schema version: proves the file is open, readable and at the version we write. */
  async health(): Promise<SlotHealth> {
    if (!this.#store) return { state: 'degraded', reason: 'not-open' };
    try {
      const version = this.#store.db.pragma('user_version', { simple: true }) as number;
      if (version !== SCHEMA_VERSION) return { state: 'degraded', reason: `schema-version: found ${version}, expected ${SCHEMA_VERSION}` };
      return { state: 'healthy' };
    } catch (err) {
      return { state: 'degraded', reason: `sqlite: ${(err as { code?: string }).code ?? (err as Error).message}` };
    }
  }

  async create(input: NewBead): Promise<Bead> {
    return this.#run('create', (s) => s.create(input));
  }

  async get(id: string): Promise<Bead> {
    return this.#run('get', (s) => s.get(id));
  }

  async list(query: BeadQuery): Promise<Page<Bead>> {
    return this.#run('list', (s) => s.list(query));
  }

  async claim(id: string, claimant: string): Promise<ClaimResult> {
    return this.#run('claim', (s) => s.claim(id, claimant));
  }

  async closeBead(id: string, outcome: BeadOutcome, note?: string): Promise<Bead> {
    return this.#run('closeBead', (s) => s.close(id, outcome, note));
  }

  async readyQueue(request: PageRequest): Promise<Page<Bead>> {
    return this.#run('readyQueue', (s) => s.ready(request));
  }

  /** Close the connection (a WAL checkpoint happens as the last connection closes). */
  async close(): Promise<void> {
    this.#store?.dispose();
    this.#store = undefined;
  }

  /** Run a store operation, mapping SQLite failures onto the adapter errors. */
  #run<T>(operation: string, fn: (store: SqliteBeadsStore) => T): T {
    if (!this.#store) throw new AdapterUnavailableError('beads', 'the beads database is not open');
    try {
      return fn(this.#store);
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const code = (err as { code?: unknown }).code;
      // Another process held the write lock for the whole busy timeout: slow, not broken.
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') throw new AdapterTimeoutError('beads', operation, this.options.busyTimeoutMs ?? BUSY_TIMEOUT_MS);
      if (typeof code === 'string' && code.startsWith('SQLITE_')) throw new AdapterUnavailableError('beads', `sqlite ${code}`, { cause: err });
      throw err;
    }
  }
}

/** Build the adapter over `<state>/beads/beads.sqlite`. */
export function create(context: AdapterContext<'beads'>): BeadsAdapter {
  return new LocalSqliteBeads({ file: path.join(context.paths.stateDir, 'beads', 'beads.sqlite') });
}

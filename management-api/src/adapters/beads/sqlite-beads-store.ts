// The beads engine on one SQLite file: prepared statements, each operation one transaction.
import { randomUUID } from 'node:crypto';
import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import type { Page, PageRequest } from '../adapter.js';
import { mapPage } from '../cursor-pager.js';
import { AdapterConflictError, AdapterInputError, AdapterNotFoundError } from '../../adapter-errors.js';
import { checkClaimant, checkId, checkNewBead, checkOutcome } from './bead-input.js';
import { BEADS_PAGER, beadColumns, toBead, type BeadRow } from './bead-rows.js';
import type { Bead, BeadOutcome, BeadQuery, ClaimResult, NewBead } from './beads-adapter.js';
import { migrate } from './sqlite-schema.js';

/** How the database file is opened. */
export interface StoreOptions {
  file: string;
  clock: () => Date;
  /** How long a write waits for another connection's lock before SQLITE_BUSY. */
  busyTimeoutMs: number;
  /**
   * `NORMAL` (WAL's recommended level): a commit survives a crash of the process; the last
   * commits before a power loss may roll back. `FULL` fsyncs the WAL at every commit.
   */
  synchronous: 'NORMAL' | 'FULL';
}

// Open beads none of whose dependencies is anything but closed with success (`t` names the beads table).
const ready = (t: string): string => `${t}.status = 'open' AND NOT EXISTS (
  SELECT 1 FROM bead_dependencies d JOIN beads x ON x.id = d.depends_on
  WHERE d.bead_id = ${t}.id AND NOT (x.status = 'closed' AND x.outcome = 'success'))`;
const BEAD_COLUMNS = beadColumns('b');

/** Synchronous operations on the beads database; the adapter wraps them in promises and maps errors. */
export class SqliteBeadsStore {
  readonly db: Database;
  readonly #s: Record<'get' | 'insert' | 'insertDep' | 'claim' | 'close' | 'list' | 'ready', Statement>;

  constructor(private readonly options: StoreOptions) {
    this.db = new BetterSqlite3(options.file, { timeout: options.busyTimeoutMs });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma(`synchronous = ${options.synchronous}`);
      this.db.pragma('foreign_keys = ON');
      migrate(this.db);
      this.#s = {
        get: this.db.prepare(`SELECT ${BEAD_COLUMNS} FROM beads b WHERE b.id = ?`),
        insert: this.db.prepare(
          `INSERT INTO beads (id, kind, title, body, parent_id, created_at, updated_at) VALUES (@id, @kind, @title, @body, @parentId, @now, @now)`,
        ),
        insertDep: this.db.prepare(`INSERT INTO bead_dependencies (bead_id, depends_on) VALUES (?, ?)`),
        // One statement each for the common case: the UPDATE's own condition decides who wins.
        claim: this.db.prepare(
          `UPDATE beads SET status = 'claimed', claimed_by = @claimant, claimed_at = @now, updated_at = @now WHERE id = @id AND ${ready('beads')} RETURNING ${beadColumns('beads')}`,
        ),
        close: this.db.prepare(
          `UPDATE beads SET status = 'closed', outcome = @outcome, outcome_note = @note, closed_at = @now, updated_at = @now WHERE id = @id AND status != 'closed' RETURNING ${beadColumns('beads')}`,
        ),
        list: this.db.prepare(
          `SELECT ${BEAD_COLUMNS} FROM beads b WHERE b.seq > @after AND (@status IS NULL OR b.status = @status) AND (@parentId IS NULL OR b.parent_id = @parentId) ORDER BY b.seq LIMIT @limit`,
        ),
        ready: this.db.prepare(`SELECT ${BEAD_COLUMNS} FROM beads b WHERE b.seq > @after AND ${ready('b')} ORDER BY b.seq LIMIT @limit`),
      };
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** Create a bead; its parent must be an epic and its dependencies must exist. */
  create(input: NewBead): Bead {
    const bead = checkNewBead(input);
    const id = `bd-${randomUUID()}`;
    const now = this.#now();
    return this.db
      .transaction((): Bead => {
        if (bead.parentId !== undefined) {
          const parent = this.#row(bead.parentId);
          if (!parent) throw new AdapterInputError(`parent bead ${bead.parentId} does not exist`);
          if (parent.kind !== 'epic') throw new AdapterInputError(`parent bead ${bead.parentId} is a task; only epics have children`);
        }
        for (const dep of bead.dependsOn) if (!this.#row(dep)) throw new AdapterInputError(`dependency ${dep} does not exist`);
        this.#s.insert.run({ id, kind: bead.kind, title: bead.title, body: bead.body, parentId: bead.parentId ?? null, now });
        for (const dep of bead.dependsOn) this.#s.insertDep.run(id, dep);
        return toBead(this.#row(id)!);
      })
      .immediate();
  }

  /** One bead by id. */
  get(id: string): Bead {
    const row = this.#row(checkId(id));
    if (!row) throw new AdapterNotFoundError(`bead ${id}`);
    return toBead(row);
  }

  /** Beads in creation order, optionally by status and parent. */
  list(query: BeadQuery): Page<Bead> {
    const limit = BEADS_PAGER.pageLimit(query.limit);
    const rows = this.#s.list.all({
      after: BEADS_PAGER.decodeCursor(query.cursor),
      status: query.status ?? null,
      parentId: query.parentId ?? null,
      limit: limit + 1,
    }) as BeadRow[];
    return page(rows, limit);
  }

  /**
   * Claim an open, ready bead. The conditional UPDATE is one statement under SQLite's write lock,
   * which is exclusive across processes: of N concurrent claimants exactly one finds the bead
   * open and ready. The others (and a repeat by the winner) read the row to learn why, once the
   * state can no longer change back to open.
   */
  claim(id: string, claimant: string): ClaimResult {
    const who = checkClaimant(claimant);
    checkId(id);
    const won = this.#s.claim.get({ id, claimant: who, now: this.#now() }) as BeadRow | undefined;
    if (won) return { bead: toBead(won), claimed: true };
    const row = this.#row(id);
    if (!row) throw new AdapterNotFoundError(`bead ${id}`);
    if (row.status === 'claimed') {
      if (row.claimed_by === who) return { bead: toBead(row), claimed: true };
      throw new AdapterConflictError(`bead ${id} is already claimed by ${row.claimed_by ?? 'another claimant'}`);
    }
    if (row.status === 'closed') throw new AdapterConflictError(`bead ${id} is closed (${row.outcome ?? 'no outcome'})`);
    throw new AdapterConflictError(`bead ${id} is not ready: a dependency is not closed with success`);
  }

  /** Close a bead with an outcome. Closing again with the same outcome returns it unchanged. */
  close(id: string, outcome: BeadOutcome, note?: string): Bead {
    const checked = checkOutcome(outcome, note);
    checkId(id);
    const closed = this.#s.close.get({ id, outcome: checked.outcome, note: checked.note, now: this.#now() }) as BeadRow | undefined;
    if (closed) return toBead(closed);
    // Closed is final, so what we read now is what made the UPDATE miss.
    const row = this.#row(id);
    if (!row) throw new AdapterNotFoundError(`bead ${id}`);
    if (row.outcome === checked.outcome) return toBead(row);
    throw new AdapterConflictError(`bead ${id} is already closed with outcome ${row.outcome ?? 'none'}`);
  }

  /** Open beads whose dependencies all closed with success, oldest first. */
  ready(request: PageRequest): Page<Bead> {
    const limit = BEADS_PAGER.pageLimit(request.limit);
    return page(this.#s.ready.all({ after: BEADS_PAGER.decodeCursor(request.cursor), limit: limit + 1 }) as BeadRow[], limit);
  }

  /** Release the connection. */
  dispose(): void {
    if (this.db.open) this.db.close();
  }

  #row(id: string): BeadRow | undefined {
    return this.#s.get.get(id) as BeadRow | undefined;
  }

  #now(): string {
    return this.options.clock().toISOString();
  }
}

// One row more than the page tells whether another page exists.
function page(rows: BeadRow[], limit: number): Page<Bead> {
  return mapPage(
    BEADS_PAGER.page(rows, limit, (r) => r.seq),
    toBead,
  );
}

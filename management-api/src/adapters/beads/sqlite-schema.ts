// The beads database schema as numbered migrations, applied once per version under a write lock.
import type { Database } from 'better-sqlite3';

/**
 * Migrations in order; migration i (0-based) takes the database from version i to i + 1
 * (`PRAGMA user_version`). Append new ones; never edit a released one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE beads (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    kind         TEXT NOT NULL CHECK (kind IN ('epic', 'task')),
    title        TEXT NOT NULL,
    body         TEXT NOT NULL DEFAULT '',
    parent_id    TEXT REFERENCES beads (id),
    status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'claimed', 'closed')),
    claimed_by   TEXT,
    claimed_at   TEXT,
    closed_at    TEXT,
    outcome      TEXT CHECK (outcome IN ('success', 'failure', 'cancelled')),
    outcome_note TEXT,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
  );
  CREATE INDEX beads_by_status ON beads (status, seq);
  CREATE INDEX beads_by_parent ON beads (parent_id, seq);
  CREATE TABLE bead_dependencies (
    bead_id    TEXT NOT NULL REFERENCES beads (id),
    depends_on TEXT NOT NULL REFERENCES beads (id),
    PRIMARY KEY (bead_id, depends_on)
  ) WITHOUT ROWID;
  CREATE INDEX bead_dependencies_by_target ON bead_dependencies (depends_on);
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** The database was written by a newer build; opening it could corrupt it. */
export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/**
 * Bring `db` to {@link SCHEMA_VERSION}. The version is read inside an IMMEDIATE transaction, so
 * when several processes open a fresh file at once, exactly one applies each migration and the
 * others see the result. Returns the version found before migrating.
 */
export function migrate(db: Database): number {
  const run = db.transaction((): number => {
    const found = db.pragma('user_version', { simple: true }) as number;
    if (found > SCHEMA_VERSION) {
      throw new SchemaTooNewError(
        `the beads database is at schema version ${found}, newer than this build's ${SCHEMA_VERSION}; run a newer Agentbox or restore a backup`,
      );
    }
    for (let v = found; v < SCHEMA_VERSION; v++) db.exec(MIGRATIONS[v]!);
    // PRAGMA takes no bound parameters; the value is an integer we computed.
    if (found < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    return found;
  });
  return run.immediate();
}

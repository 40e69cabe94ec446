// A consistent copy of a live SQLite store through SQLite's online backup API, from outside the
// process that writes it: a write between backup steps restarts the copy, and every step after the
// first copies all remaining pages, so the copy ends as one snapshot of the store.
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Pages per backup step after the first: every page, so a restart caused by a write converges. */
const ALL_PAGES = 2 ** 30;

/**
 * Copy `source` to `target` (which must not exist); false when there is no store at `source`.
 * The copy is checked (`PRAGMA quick_check`) and left in rollback-journal mode: one file, no -wal.
 */
export async function backupSqlite(source: string, target: string): Promise<boolean> {
  if (!existsSync(source)) return false;
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    await db.backup(target, { progress: () => ALL_PAGES });
  } finally {
    db.close();
  }
  const copy = new Database(target, { fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of ${source} fails SQLite's quick_check: ${String(check)}`);
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
  return true;
}

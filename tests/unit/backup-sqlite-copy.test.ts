// The online copy of a live SQLite store, on real database files: written in flushed steps while another connection keeps
// writing, it is still one snapshot — the store as it was when the copy began — and it checks out whole.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { backupSqlite } from '../../management-api/src/backup/copy-sqlite.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-sqlite-copy-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

/** A store of `rows` rows of 1 KiB in `journal` mode, and its writer. */
function store(name: string, rows: number, journal: 'wal' | 'delete') {
  const file = path.join(work, name);
  const db = new Database(file);
  db.pragma(`journal_mode = ${journal}`);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) insert.run(Buffer.alloc(1024, i % 251));
  })();
  return { file, db, insert };
}

const count = (file: string): number => {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n;
  } finally {
    db.close();
  }
};

t.test('a WAL store written to during a copy of several steps: the copy is the store as the copy began', async (t) => {
  // About 30 MiB: four steps of 8 MiB at least.
  const { file, db, insert } = store('live.sqlite', 30_000, 'wal');
  t.teardown(() => db.close());
  let writes = 0;
  let writing = true;
  // Another connection writing between the copy's steps (each step yields to the event loop).
  const writer = (async () => {
    while (writing) {
      insert.run(Buffer.alloc(1024, 7));
      writes++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const target = path.join(work, 'live-copy.sqlite');
  // The copy's snapshot is taken as it is called (the writer's first row went in before).
  const atStart = 30_000 + writes;
  const copying = backupSqlite(file, target);
  const writtenBefore = writes;
  const copied = await copying;
  writing = false;
  await writer;
  t.equal(copied, true);
  t.ok(writes > writtenBefore, `the store was written to during the copy (${writes - writtenBefore} rows)`);
  t.equal(count(target), atStart, 'the copy holds the rows there when it began, none of those written during it');
  t.equal(count(file), 30_000 + writes, 'and the store kept every write');
  const copy = new Database(target, { readonly: true });
  t.teardown(() => copy.close());
  t.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'the copy is one file, in rollback-journal mode');
  t.equal(copy.pragma('integrity_check', { simple: true }), 'ok', 'and whole');
});

t.test('a store not in WAL mode is copied whole in one step', async (t) => {
  const { file, db } = store('plain.sqlite', 2_000, 'delete');
  db.close();
  const target = path.join(work, 'plain-copy.sqlite');
  t.equal(await backupSqlite(file, target), true);
  t.equal(count(target), 2_000);
});

t.test('no store: nothing copied, no file made', async (t) => {
  const target = path.join(work, 'none-copy.sqlite');
  t.equal(await backupSqlite(path.join(work, 'absent.sqlite'), target), false);
  t.throws(() => new Database(target, { fileMustExist: true }), 'no copy was made');
});

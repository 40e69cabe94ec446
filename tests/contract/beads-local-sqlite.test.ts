// beads/local-sqlite through the resolver: the beads contract, plus what only the SQLite file has
// (claims across processes, WAL, migrations, persistence across restarts).
import t from 'tap';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { LocalSqliteBeads } from '../../management-api/src/adapters/beads/local-sqlite.js';
import { SCHEMA_VERSION } from '../../management-api/src/adapters/beads/sqlite-schema.js';
import { beadsContract } from './beads.contract.js';
import { bundleEntry } from './beads-events-bundle.js';
import { onlySlot, startSlot } from './pods-harness.js';

const manifest = onlySlot('beads', 'local-sqlite');
const here = path.dirname(fileURLToPath(import.meta.url));
const dbFile = (stateDir: string) => path.join(stateDir, 'beads', 'beads.sqlite');

t.test('contract', async (t) => {
  beadsContract(t, () => startSlot('beads', manifest));
});

t.test('the database is one WAL-mode SQLite file at the current schema version under <state>/beads', async (t) => {
  const h = await startSlot('beads', manifest);
  t.teardown(() => h.close());
  await h.ops.create({ title: 'x' });
  const db = new BetterSqlite3(dbFile(h.paths.stateDir), { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
  t.equal((db.prepare('SELECT count(*) AS n FROM beads').get() as { n: number }).n, 1);
});

t.test('beads survive a restart of the API on the same volume', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-beads-restart-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const first = await startSlot('beads', manifest, { root });
  const epic = await first.ops.create({ kind: 'epic', title: 'kept' });
  const child = await first.ops.create({ title: 'child', parentId: epic.id });
  await first.ops.claim(child.id, 'agent-1');
  await first.close();
  const second = await startSlot('beads', manifest, { root });
  t.teardown(() => second.close());
  t.match(await second.ops.get(child.id), { status: 'claimed', claimedBy: 'agent-1', parentId: epic.id });
  t.equal((await second.ops.claim(child.id, 'agent-1')).claimed, true, 'the claim is still held by its winner');
});

t.test('a database written by a newer schema is refused: the slot is degraded, the file untouched', async (t) => {
  const root = mkdtempSync(path.join(tmpdir(), 'agentbox-beads-newer-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const file = dbFile(path.join(root, 'var/lib/agentbox'));
  await new LocalSqliteBeads({ file }).connect(AbortSignal.timeout(5_000));
  const raw = new BetterSqlite3(file);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
  const h = await startSlot('beads', manifest, { root, timing: { reconnectInitialMs: 60_000, reconnectMaxMs: 60_000 } });
  t.teardown(() => h.close());
  t.equal(h.state(), 'degraded');
  t.match(h.reason(), /newer than this build/);
  await t.rejects(h.ops.list({}), { code: 'ABX_ERR_ADAPTER_DEGRADED' });
  const check = new BetterSqlite3(file, { readonly: true });
  t.equal(check.pragma('user_version', { simple: true }), SCHEMA_VERSION + 1, 'the version was not rewritten');
  check.close();
});

t.test('several processes claiming the same beads on one file: each bead has exactly one winner', async (t) => {
  const h = await startSlot('beads', manifest);
  t.teardown(() => h.close());
  const ids: string[] = [];
  // Enough beads that each worker is still claiming when the others wake up, even on a busy machine.
  for (let i = 0; i < 500; i++) ids.push((await h.ops.create({ title: `shared ${i}` })).id);
  const work = mkdtempSync(path.join(tmpdir(), 'agentbox-claimers-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const idsFile = path.join(work, 'ids.json');
  const goFile = path.join(work, 'go');
  writeFileSync(idsFile, JSON.stringify(ids));
  const worker = await bundleEntry(path.join(here, 'beads-claim-worker.ts'));
  t.teardown(() => rmSync(worker, { force: true }));

  const workers = Array.from({ length: 4 }, (_, i) => {
    const child = spawn(process.execPath, [worker, dbFile(h.paths.stateDir), `proc-${i}`, idsFile, goFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const ready = new Promise<void>((resolve) => child.stdout.on('data', () => out.includes('ready\n') && resolve()));
    const done = new Promise<{ claimant: string; won: string[]; conflicts: number; errors: string[] }>((resolve, reject) =>
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.split('\n').filter(Boolean).at(-1)!)) : reject(new Error(`worker ${i} exited ${code}`)))),
    );
    return { ready, done };
  });
  await Promise.all(workers.map((w) => w.ready));
  // Every process is connected and waiting: release them at once.
  writeFileSync(goFile, '');
  const results = await Promise.all(workers.map((w) => w.done));

  t.same(
    results.flatMap((r) => r.errors),
    [],
    'no worker saw anything but wins and conflicts',
  );
  const winners = new Map<string, string[]>();
  for (const r of results) for (const id of r.won) winners.set(id, [...(winners.get(id) ?? []), r.claimant]);
  t.equal(winners.size, ids.length, 'every bead was won');
  t.ok(
    [...winners.values()].every((w) => w.length === 1),
    'no bead was won twice',
  );
  t.equal(
    results.reduce((n, r) => n + r.conflicts, 0),
    ids.length * (workers.length - 1),
    'every other attempt was a conflict',
  );
  t.ok(results.filter((r) => r.won.length > 0).length > 1, 'the claims really were contended between processes');
  const mismatched = [];
  for (const id of ids) if ((await h.ops.get(id)).claimedBy !== winners.get(id)![0]) mismatched.push(id);
  t.same(mismatched, [], 'the stored claimant of every bead is its winner');
});

// The snapshot reader's one thread answers reads as a fresh parse would, checks a record once and keeps it while its file is unchanged, fails what it was asked when it ends, and starts again after.
import t, { type Test } from 'tap';
import { closeSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeLines, sha256Hex } from '../../management-api/src/snapshots/entries-file.js';
import { EntriesScan } from '../../management-api/src/snapshots/entries-scan.js';
import { browseEntries, type BrowseJob } from '../../management-api/src/snapshots/snapshot-browse.js';
import type { SnapshotEntry } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { SnapshotReader } from '../../management-api/src/snapshots/snapshot-reader.js';

const dir = (p: string): SnapshotEntry => ({ type: 'dir', path: p, mode: 0o755, mtimeNs: '1', key: `1:${p.length}:1:1:0` });
const file = (p: string, n: number): SnapshotEntry => ({
  type: 'file',
  path: p,
  mode: 0o644,
  mtimeNs: '2',
  size: 3,
  chunks: [n.toString(16).padStart(64, '0')],
  key: '1:2:3:4:5',
});

/** A record of `dirs` directories of `files` files each, written to `work`: its file and sha256. */
function record(work: string, name: string, dirs: number, files: number): { entriesFile: string; entriesSha256: string; entries: SnapshotEntry[] } {
  const entries: SnapshotEntry[] = [dir('')];
  for (let d = 0; d < dirs; d++) {
    entries.push(dir(`d${d}`));
    for (let f = 0; f < files; f++) entries.push(file(`d${d}/f${f}.ts`, d * files + f + 1));
  }
  const bytes = Buffer.from(encodeLines(entries.map((e) => JSON.stringify(e))));
  const entriesFile = path.join(work, `${name}.jsonl`);
  writeFileSync(entriesFile, bytes);
  return { entriesFile, entriesSha256: sha256Hex(bytes), entries };
}

const job = (r: { entriesFile: string; entriesSha256: string }, p: string, list = false): BrowseJob => ({
  op: 'browse',
  storeDir: '/nonexistent',
  entriesFile: r.entriesFile,
  entriesSha256: r.entriesSha256,
  path: p,
  list,
  locate: false,
});

/** A directory of its own and a reader of its own, both gone after the test. */
function fixture(t: Test): { work: string; reader: SnapshotReader } {
  const work = mkdtempSync(path.join(tmpdir(), 'abx-reader-'));
  t.teardown(() => rmSync(work, { recursive: true, force: true }));
  const reader = new SnapshotReader();
  t.teardown(() => reader.close());
  return { work, reader };
}

t.test('reads answer as a fresh parse does, many at once', async (t) => {
  const { work, reader } = fixture(t);
  const a = record(work, 'a', 20, 30);
  const b = record(work, 'b', 5, 3);
  const expect = (r: typeof a, p: string, list: boolean) =>
    browseEntries(EntriesScan.of(Buffer.from(encodeLines(r.entries.map((e) => JSON.stringify(e)))), r.entriesSha256, 'x'), p, { list });
  const asks: Array<[typeof a, string, boolean]> = [];
  for (const r of [a, b]) for (const p of ['', 'd0', 'd4', 'd4/f2.ts', 'd19', 'nope', 'd4/f2.ts/below']) asks.push([r, p, true], [r, p, false]);
  const answers = await Promise.all(asks.map(([r, p, list]) => reader.browse(job(r, p, list))));
  for (const [i, [r, p, list]] of asks.entries())
    t.same(answers[i], expect(r, p, list), `${path.basename(r.entriesFile)} ${JSON.stringify(p)}${list ? ' listed' : ''}`);
});

t.test('a record is checked when first read and kept: a second read neither reads nor hashes it, while its file is unchanged', async (t) => {
  const { work, reader } = fixture(t);
  const r = record(work, 'r', 3, 3);
  const bytes = readFileSync(r.entriesFile);
  t.match(await reader.browse(job(r, 'd1/f1.ts')), { found: true, entry: { path: 'd1/f1.ts' } });
  t.equal(reader.recordsRead, 1, 'read once');
  t.match(await reader.browse(job(r, 'd2', true)), { found: true, children: [{ path: 'd2/f0.ts' }, { path: 'd2/f1.ts' }, { path: 'd2/f2.ts' }] });
  t.equal(reader.recordsRead, 1, 'the second read answered from the kept record');

  // Written since (even with the same bytes): read and checked again.
  writeFileSync(r.entriesFile, bytes);
  t.match(await reader.browse(job(r, 'd0', true)), { found: true, children: [{ path: 'd0/f0.ts' }, { path: 'd0/f1.ts' }, { path: 'd0/f2.ts' }] });
  t.equal(reader.recordsRead, 2, 'a file written since is read again');

  // Damaged after the check, in place or by a file renamed over it, its times set back: refused, never answered from the kept copy.
  const damaged = Buffer.from(bytes);
  damaged[damaged.indexOf('d2/f1.ts')] = 0x65;
  const { mtime, atime } = statSync(r.entriesFile);
  const h = openSync(r.entriesFile, 'r+');
  writeSync(h, damaged, 0, damaged.length, 0);
  closeSync(h);
  utimesSync(r.entriesFile, atime, mtime);
  await t.rejects(reader.browse(job(r, 'd2', true)), /do not match their recorded sha256: the store is damaged/, 'damaged in place, same size and mtime');
  writeFileSync(r.entriesFile, bytes);
  t.match(await reader.browse(job(r, 'd2', true)), { found: true }, 'whole again');
  writeFileSync(path.join(work, 'swap'), damaged);
  renameSync(path.join(work, 'swap'), r.entriesFile);
  await t.rejects(reader.browse(job(r, 'd2', true)), /do not match their recorded sha256: the store is damaged/, 'another file renamed over it');
  await t.rejects(reader.browse(job(r, 'd1/f1.ts')), /do not match their recorded sha256/, 'and the next read as well: nothing damaged is kept');

  const missing = { entriesFile: path.join(work, 'gone.jsonl'), entriesSha256: r.entriesSha256 };
  await t.rejects(reader.browse(job(missing, '')), { code: 'ENOENT' }, "a missing record fails with the file's error code");
  rmSync(r.entriesFile);
  await t.rejects(reader.browse(job(r, '')), { code: 'ENOENT' }, 'a kept record whose file is gone fails as a missing one');
});

t.test('a read in progress fails when the thread ends, and the next read starts a new thread', async (t) => {
  const { work, reader } = fixture(t);
  const r = record(work, 'big', 200, 100);
  const cut = t.rejects(reader.browse(job(r, 'd7', true)), /the snapshot reader was closed/);
  await reader.close();
  await cut;
  const again = await reader.browse(job(r, 'd7', true));
  t.equal(again.found && again.children?.length, 100, 'answered by a new thread');
});

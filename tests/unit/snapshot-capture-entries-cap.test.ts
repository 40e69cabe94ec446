// A capture walks at most its cap of entries (its agent's limits.entries, else MAX_SNAPSHOT_ENTRIES, the disk walk's): a workspace with more fails whole with
// 413 and nothing kept, and a directory of more names than the cap leaves is read no further than that (its files never opened).
import t from 'tap';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { MAX_SNAPSHOT_ENTRIES } from '../../management-api/src/snapshots/capture-entries-cap.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { bytesRead, captureDir } from '../helpers/store-capture.js';
import { MAX_WALK_ENTRIES } from '../../management-api/src/sandbox/limits/disk-walk.js';
import { readdirEntriesSync } from '../../management-api/src/fs-names.js';

const CAP = 1_000;
const work = mkdtempSync(path.join(tmpdir(), 'agentbox-capture-cap-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const store = new SnapshotStore({ dir: path.join(work, 'store'), logger: pino({ level: 'silent' }), maxCaptureEntries: CAP });
t.before(() => store.open());
t.teardown(() => store.close());

const capture = (dir: string) => captureDir(store, dir);

function files(dir: string, count: number, bytes = 0): void {
  mkdirSync(dir, { recursive: true });
  const data = Buffer.alloc(bytes, 7);
  for (let i = 0; i < count; i++) {
    if (bytes > 0) writeFileSync(path.join(dir, `f${i}`), data);
    else closeSync(openSync(path.join(dir, `f${i}`), 'w'));
  }
}

t.test('the cap is the disk walk’s: a tree a running agent may keep can be captured', async (t) => {
  t.equal(MAX_SNAPSHOT_ENTRIES, MAX_WALK_ENTRIES);
});

t.test('a workspace of exactly the cap is captured', async (t) => {
  const dir = path.join(work, 'full');
  files(path.join(dir, 'a'), 499);
  files(path.join(dir, 'b'), 499);
  const made = await capture(dir);
  t.equal(made.stats.files + made.stats.dirs, CAP, 'every entry kept');
});

t.test("the agent's entry budget replaces the store's cap, up or down, and the error names the setting", async (t) => {
  const dir = path.join(work, 'budgeted');
  files(path.join(dir, 'a'), 1_200);
  const above = await captureDir(store, dir, { maxEntries: 1_201 });
  t.equal(above.stats.files + above.stats.dirs, 1_201, 'a budget above the cap: all 1,200 files and their directory kept');
  await t.rejects(captureDir(store, dir, { maxEntries: 1_200 }), {
    code: 'ABX_ERR_FILE_TOO_LARGE',
    message:
      /^the workspace holds more than 1200 entries \(found listing "a"\): too many to snapshot; remove what it need not keep, or raise sandbox\.limits\.entries; nothing was kept$/,
  });
  await t.rejects(captureDir(store, path.join(work, 'full'), { maxEntries: 100 }), { message: /more than 100 entries/ }, 'and below it');
});

t.test('one directory of more names than the cap: 413, nothing kept, none of its files read', async (t) => {
  const dir = path.join(work, 'flat');
  // 5,000 files of 4 KiB: 20 MiB a capture would read.
  files(path.join(dir, 'many'), 5 * CAP, 4096);
  const kept = store.list().length;
  // A capture thread started and its modules loaded first: those reads are not the capture's.
  const warm = path.join(work, 'warm');
  mkdirSync(warm);
  await capture(warm);
  const before = bytesRead();
  await t.rejects(capture(dir), {
    code: 'ABX_ERR_FILE_TOO_LARGE',
    message: new RegExp(`^the workspace holds more than ${CAP} entries \\(found listing "many"\\): too many to snapshot.*; nothing was kept$`),
  });
  const read = bytesRead() - before;
  t.ok(read < 4 * 1024 * 1024, `the files were not read (${(read / 1024).toFixed(0)} KiB read in all; the files are 20 MiB)`);
  t.equal(store.list().length, kept + 1, 'no snapshot kept but the warm-up’s');
});

t.test('entries count across directories, and a second capture counts the names it reuses', async (t) => {
  const dir = path.join(work, 'spread');
  files(path.join(dir, 'a'), 450);
  files(path.join(dir, 'b'), 450);
  const first = await capture(dir);
  t.equal(first.stats.files, 900);
  files(path.join(dir, 'c'), 200);
  await t.rejects(capture(dir), { code: 'ABX_ERR_FILE_TOO_LARGE', message: /more than 1000 entries/ }, 'the directories unchanged since count too');
});

t.test('the bounded listing: entries up to the bound, undefined past it, names that are not UTF-8 as bytes', async (t) => {
  const dir = path.join(work, 'listing');
  files(dir, 600);
  writeFileSync(Buffer.concat([Buffer.from(`${dir}/caf`), Buffer.of(0xe9)]), '');
  t.equal(readdirEntriesSync(dir, 601)?.length, 601, 'all of them within the bound');
  t.equal(readdirEntriesSync(dir, 600), undefined, 'one more than the bound: none');
  const listed = readdirEntriesSync(dir, 601)!;
  t.ok(
    listed.some((d) => d.name === 'caf\udce9' && d.isFile()),
    'the Latin-1 name escaped, its type kept',
  );
});

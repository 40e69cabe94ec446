// Names that are not UTF-8 (any bytes but '/' and NUL, as the kernel allows) are captured and built back as they are: files, directories,
// links and link targets, on a first snapshot and on a second one that reuses the first's records.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { tarOf } from '../helpers/deep-tree.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-byte-names-'));
t.teardown(() => execFileSync('rm', ['-rf', work]));

/** `dir`/`name` as bytes: the name is whatever bytes it is given. */
const under = (dir: string, ...names: Array<string | number[]>): Buffer =>
  Buffer.concat([Buffer.from(dir), ...names.flatMap((n) => [Buffer.from('/'), typeof n === 'string' ? Buffer.from(n) : Buffer.from(n)])]);

const LONE = [0x61, 0xff, 0x62]; // a\xffb
const CUT = [0x64, 0xc3]; // d\xc3
const CESU = [0xed, 0xb2, 0x80];
const PAST = [0xf4, 0x90, 0x80, 0x80];

/** A tree of names no UTF-8 decoder keeps, beside ones it does (a real U+FFFD among them). */
function makeTree(ws: string): void {
  mkdirSync(ws);
  writeFileSync(under(ws, LONE), 'lone byte\n');
  mkdirSync(under(ws, CUT));
  writeFileSync(under(ws, CUT, CESU), 'a surrogate encoded\n');
  writeFileSync(under(ws, CUT, PAST), 'past the last code point\n');
  writeFileSync(under(ws, CUT, 'x\uFFFDy'), 'a real replacement character\n');
  writeFileSync(under(ws, CUT, 'ok-é'), 'valid\n');
  symlinkSync(Buffer.from(LONE), under(ws, [0x6c, 0xfe]));
  symlinkSync(under('..', LONE), under(ws, CUT, 'up'));
}

async function snapshot(store: SnapshotStore, ws: string) {
  const dir = await open(ws, DIR_FLAGS);
  return store.create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_bytes', name: 'bytes', cwd: 'bytes' } }).finally(() => dir.close());
}

t.test('names that are not UTF-8 come back byte for byte, first and second snapshot', async (t) => {
  const ws = path.join(work, 'ws');
  makeTree(ws);
  const store = new SnapshotStore({ dir: path.join(work, 'store'), logger: pino({ level: 'silent' }) });
  await store.open();
  t.teardown(() => store.close());

  const first = await snapshot(store, ws);
  t.match(first.stats, { files: 5, dirs: 1, symlinks: 2, skipped: 0 }, 'every entry captured, none left out');
  const back = path.join(work, 'back');
  await store.materialize(first.id, back, undefined, 'fork');
  t.ok(tarOf(back).equals(tarOf(ws)), 'the build packs to the same bytes as the workspace: names, contents, link targets');
  t.equal(readFileSync(under(back, CUT, CESU), 'utf8'), 'a surrogate encoded\n', 'a file under an undecodable directory reads back');

  // A second snapshot: the first's records reused for what did not change, by path, under the same names.
  writeFileSync(under(ws, CUT, PAST), 'changed\n');
  writeFileSync(under(ws, [0x6e, 0x80]), 'new\n');
  const second = await snapshot(store, ws);
  t.match(second.stats, { files: 6, symlinks: 2, skipped: 0 }, 'the second snapshot takes every entry');
  t.ok(second.stats.reusedFiles >= 3, `unchanged files under byte names reused (${second.stats.reusedFiles})`);
  const again = path.join(work, 'again');
  await store.materialize(second.id, again, undefined, 'restore');
  t.ok(tarOf(again).equals(tarOf(ws)), 'and builds back to the workspace as it is now');
  t.equal(readFileSync(under(again, CUT, PAST), 'utf8'), 'changed\n', 'the changed file as changed');
});

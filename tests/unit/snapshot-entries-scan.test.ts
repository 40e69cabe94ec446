// Finding entries by searching an entries file's bytes gives what a full parse gives, for any names an agent may choose; chunks found in the packs' index bytes are where loadIndex says.
import t from 'tap';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeLines, parseEntries, sha256Hex } from '../../management-api/src/snapshots/entries-file.js';
import { EntriesScan } from '../../management-api/src/snapshots/entries-scan.js';
import { findChunks, indexFile, loadIndex, storeLayout } from '../../management-api/src/snapshots/object-store.js';
import type { SnapshotEntry } from '../../management-api/src/snapshots/snapshot-manifest.js';

const hash = (n: number) => n.toString(16).padStart(64, '0');
const dir = (p: string): SnapshotEntry => ({ type: 'dir', path: p, mode: 0o755, mtimeNs: '1', key: `1:${p.length}:1:1:0` });
const file = (p: string, n = 1): SnapshotEntry => ({
  type: 'file',
  path: p,
  mode: 0o644,
  mtimeNs: '2',
  size: 3,
  chunks: [hash(n)],
  key: '1:2:3:4:5',
});
const link = (p: string, target: string): SnapshotEntry => ({ type: 'symlink', path: p, target, mtimeNs: '3' });

/** Names that search could confuse: prefixes of one another, quotes, backslashes, a slash in a link's target, beyond ASCII, escapes. */
const NAMES = ['a', 'a.ts', 'a b', 'a"b', 'a\\b', 'a\\', '\\"', 'ab', 'é', 'naïve €', '😀', 'lone \ud800', 'tab\there', 'nl\nline', '"path":"x",'];

function tree(): SnapshotEntry[] {
  const entries: SnapshotEntry[] = [dir('')];
  let n = 0;
  for (const top of NAMES) {
    entries.push(dir(top));
    for (const inner of NAMES) entries.push(file(`${top}/${inner}`, ++n));
    entries.push(dir(`${top}/sub`), file(`${top}/sub/deep`, ++n), link(`${top}/link`, '../a/"path":"a.ts",'));
    entries.push(file(`${top}-file`, ++n));
  }
  return entries;
}

function scanOf(entries: SnapshotEntry[]): { scan: EntriesScan; bytes: Buffer } {
  const bytes = Buffer.from(encodeLines(entries.map((e) => JSON.stringify(e))));
  return { scan: EntriesScan.of(bytes, sha256Hex(bytes), 'test'), bytes };
}

const byPath = (a: SnapshotEntry, b: SnapshotEntry) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

t.test('every entry is found by its path, and what is not there is not', async (t) => {
  const entries = tree();
  const { scan } = scanOf(entries);
  for (const e of entries) t.same(scan.entry(e.path), e, `${JSON.stringify(e.path)} found whole`);
  for (const absent of ['b', 'a/', 'a/sub/deep/x', 'a.t', '"', 'a/sub/dee', '../a', '"path":"x"'])
    t.equal(scan.entry(absent), undefined, `${JSON.stringify(absent)} absent`);
});

t.test("a directory's children are those a full parse finds, however the names are written", async (t) => {
  const entries = tree();
  const { scan, bytes } = scanOf(entries);
  const parsed = parseEntries(bytes, sha256Hex(bytes), 'test');
  for (const d of parsed.filter((e) => e.type === 'dir')) {
    const prefix = d.path === '' ? '' : `${d.path}/`;
    const expected = parsed.filter((e) => e.path !== '' && e.path.startsWith(prefix) && !e.path.includes('/', prefix.length)).sort(byPath);
    t.same(scan.children(d.path).sort(byPath), expected, `children of ${JSON.stringify(d.path)}`);
  }
  t.equal(scan.children('').length, NAMES.length * 2, 'the top: each name as a directory and as a file');
  t.same(scan.children('no such dir'), [], 'none of a directory not there');
});

t.test('damage is refused as a full parse refuses it', async (t) => {
  const { bytes } = scanOf(tree());
  t.throws(() => EntriesScan.of(bytes, sha256Hex(Buffer.from('other')), 'e.jsonl'), /do not match their recorded sha256/, 'a file not matching its hash');
  const bad = Buffer.from(encodeLines([JSON.stringify(dir('')), JSON.stringify(file('../escape'))]));
  t.throws(() => EntriesScan.of(bad, sha256Hex(bad), 'e.jsonl').entry('../escape'), /not a plain relative path/, 'a path with ..');
  const badHash = Buffer.from(encodeLines([JSON.stringify({ ...file('x'), chunks: ['nothex'] })]));
  t.throws(() => EntriesScan.of(badHash, sha256Hex(badHash), 'e.jsonl').entry('x'), /chunk hash is malformed/, 'a malformed chunk hash');
});

t.test('chunks found in the index bytes are where loadIndex finds them', async (t) => {
  const store = mkdtempSync(path.join(tmpdir(), 'abx-find-chunks-'));
  t.teardown(() => rmSync(store, { recursive: true, force: true }));
  mkdirSync(storeLayout(store).packs, { recursive: true });
  const index = (from: number, to: number, offset: number) =>
    Object.fromEntries(Array.from({ length: to - from }, (_, i) => [hash(from + i), [offset + i * 10, 10 + i]]));
  // Two packs share chunks 50..59: the first pack by name holds them, as loadIndex takes them.
  writeFileSync(indexFile(store, 'p1'), JSON.stringify(index(0, 60, 0)));
  writeFileSync(indexFile(store, 'p2'), JSON.stringify(index(50, 200, 1_000_000_000_000)));
  // A torn index, as a power loss leaves one: passed over by both.
  writeFileSync(indexFile(store, 'p0'), JSON.stringify(index(200, 260, 7)).slice(0, 500));
  writeFileSync(indexFile(store, 'p3'), Buffer.concat([Buffer.from(JSON.stringify(index(260, 270, 7)).slice(0, 200)), Buffer.alloc(64)]));
  const all = loadIndex(store);
  const cases: Array<[string, number[]]> = [
    ['in the first pack', [0, 1, 59]],
    ['in both (the first wins)', [50, 55]],
    ['in the second only, beyond 2^32', [60, 199]],
    ['in a torn index only: absent', [200, 210, 265]],
    ['repeated', [3, 3, 3]],
    ['many: the indexes are parsed', Array.from({ length: 100 }, (_, i) => i * 2)],
  ];
  for (const [what, ns] of cases) {
    const hashes = ns.map(hash);
    const expected = new Map(hashes.filter((h) => all.has(h)).map((h) => [h, all.get(h)!]));
    const found = findChunks(store, hashes);
    t.same(new Map([...found].filter(([h]) => hashes.includes(h))), expected, what);
  }
  t.same(findChunks(store, [hash(2)]).get(hash(2)), { pack: 'p1', offset: 20, length: 12 }, 'offset and length as written');
});

// The tar worker on a real worker thread: what a walk holds is bounded whatever the tree (listings streamed, nesting capped), and
// a worker that still runs out of heap ends alone, fails the pack in flight naming the limit, releases its directory, and a pack
// on a new worker is whole.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createReadStream, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';
import { repoRoot } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-worker-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
/** A heap of a quarter of the large tree's names below (about 60 MB): room for what a pack holds, not for whole listings. */
const HEAP_MIB = 16;
/** Too small a heap for a worker to load its modules: the backstop's failure path, made happen. */
const TINY_HEAP_MIB = 2;

/**
 * Packs run in a plain `node` child on the built module: under the tests' TypeScript loader a worker would compile its sources
 * in its own heap, and how much that takes depends on the loader's cache, not on the walk. The child writes the tar to `out`
 * and prints how the pack ended.
 */
const packer = path.join(work, 'pack.mjs');
writeFileSync(
  packer,
  `import { closeSync, constants, createWriteStream, openSync, readdirSync } from 'node:fs';
import { PackWorker } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist/management-api/src/workspace-files/tar-pack.js')).href)};
const [dir, heapMiB, out, maxHoleBytes] = process.argv.slice(2);
let maxFds = 0;
const sample = setInterval(() => (maxFds = Math.max(maxFds, readdirSync('/proc/self/fd').length)), 2);
const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
let gone = 0;
const worker = new PackWorker(() => gone++, Number(heapMiB));
const { stream, released } = worker.pack(fd, process.getuid(), Number(maxHoleBytes ?? Infinity), { entries: 0, skipped: 0 });
const file = createWriteStream(out);
const error = await new Promise((resolve) => {
  stream.once('error', (err) => resolve(err.message));
  stream.pipe(file).once('finish', () => resolve(undefined));
});
await released;
clearInterval(sample);
closeSync(fd);
console.log(JSON.stringify({ error, gone, streamEnded: stream.destroyed || stream.readableEnded, maxFds }));
process.exit(0);
`,
);
interface Packed {
  error?: string;
  gone: number;
  streamEnded: boolean;
  /** The most descriptors the packing process held at once, sampled every 2 ms (a lower bound of the true most). */
  maxFds: number;
}
const pack = (dir: string, out: string, heapMiB = HEAP_MIB, maxHoleBytes = Number.POSITIVE_INFINITY): Packed =>
  JSON.parse(execFileSync(process.execPath, [packer, dir, String(heapMiB), out, String(maxHoleBytes)], { encoding: 'utf8' })) as Packed;
/** The names in a tar file, as `tar` lists them. */
const listed = (file: string): string[] =>
  execFileSync('tar', ['-tf', file], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\n')
    .filter(Boolean);

/** Every entry of a tar stream: name, type and body. */
async function entries(stream: Readable): Promise<Array<{ name: string; type: string; body: string }>> {
  const extract = tar.extract();
  const out: Array<{ name: string; type: string; body: string }> = [];
  extract.on('entry', (header, body, next) => {
    const parts: Buffer[] = [];
    body.on('data', (b) => void parts.push(b as Buffer));
    body.on('end', () => {
      out.push({ name: header.name, type: header.type ?? 'file', body: Buffer.concat(parts).toString() });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    extract.once('finish', resolve);
    extract.once('error', reject);
    stream.once('error', reject);
  });
  stream.pipe(extract);
  await done;
  return out;
}

t.test('a tree whose listings outsize the heap packs whole: listings are streamed, never held whole', async (t) => {
  // Hard links of one file with long names, quick to make: 60,000 in a directory, in one below it and in one below that. Held
  // whole, the three listings (about 60 MB of names) ran the 16 MiB worker out of its heap.
  const big = path.join(work, 'big');
  mkdirSync(path.join(big, 'sub', 'sub'), { recursive: true });
  const names = new Set<string>(['sub/', 'sub/sub/']);
  for (const [dir, rel] of [
    [big, ''],
    [path.join(big, 'sub'), 'sub/'],
    [path.join(big, 'sub', 'sub'), 'sub/sub/'],
  ] as const) {
    // One file each: ext4 allows 65,000 links to a file.
    writeFileSync(path.join(dir, 'one'), 'one\n');
    names.add(`${rel}one`);
    for (let i = 0; i < 60_000; i++) {
      const name = `${'a-long-file-name-'.repeat(14)}${i}`;
      linkSync(path.join(dir, 'one'), path.join(dir, name));
      names.add(`${rel}${name}`);
    }
  }
  const done = pack(big, path.join(work, 'big.tar'));
  t.same({ error: done.error, gone: done.gone, streamEnded: done.streamEnded }, { gone: 0, streamEnded: true }, 'the pack ends well on the same worker');
  const got = listed(path.join(work, 'big.tar'));
  t.equal(got.length, names.size, 'every entry is in the tar, once');
  t.same(new Set(got), names, "and they are the tree's entries");
});

t.test('a tree nested deeper than the box walks fails the pack, naming where; one at the limit packs whole; descriptors stay bounded', async (t) => {
  // Both trees end in a file; the deep one has one level more than MAX_TREE_DEPTH below the packed directory.
  const chain = (root: string, levels: number) => {
    const dir = path.join(root, ...Array.from({ length: levels }, () => 'd'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'end.txt'), 'the end\n');
  };
  chain(path.join(work, 'at-limit'), MAX_TREE_DEPTH);
  const whole = pack(path.join(work, 'at-limit'), path.join(work, 'at-limit.tar'));
  t.same({ error: whole.error, gone: whole.gone }, { gone: 0 }, `a tree ${MAX_TREE_DEPTH} levels deep packs`);
  const names = listed(path.join(work, 'at-limit.tar'));
  t.equal(names.length, MAX_TREE_DEPTH + 1, 'every level and the file are in the tar');
  t.equal(names.at(-1), `${Array.from({ length: MAX_TREE_DEPTH }, () => 'd').join('/')}/end.txt`, 'the file at the bottom too');

  chain(path.join(work, 'too-deep'), 4 * MAX_TREE_DEPTH);
  const failed = pack(path.join(work, 'too-deep'), path.join(work, 'too-deep.tar'));
  t.match(
    failed.error,
    new RegExp(`^the workspace nests directories more than ${MAX_TREE_DEPTH} levels deep \\(at "d/d/d/.*"\\): too deep to pack`),
    'the pack fails, naming the limit and where',
  );
  t.same({ gone: failed.gone, streamEnded: failed.streamEnded }, { gone: 0, streamEnded: true }, 'the worker goes on; the stream is ended');
  // Two a level (the directory and its streamed listing), and the process's own (about twenty). Unbounded, the walk would
  // have held two for each of the tree's levels, four times as many.
  t.ok(failed.maxFds <= 2 * MAX_TREE_DEPTH + 40, `the walk held at most ${failed.maxFds} descriptors at once`);
});

t.test('a worker that runs out of heap fails the pack in flight naming the limit; its directory is released; a new worker packs whole', async (t) => {
  const small = path.join(work, 'small');
  mkdirSync(path.join(small, 'src'), { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(path.join(small, 'src', `f${i}.txt`), `file ${i}\n`);
  const failed = pack(small, path.join(work, 'small-failed.tar'), TINY_HEAP_MIB);
  t.equal(failed.error, `the tar worker ran out of its ${TINY_HEAP_MIB} MiB heap`, 'the download fails, naming the limit');
  t.equal(failed.gone, 1, 'the worker is gone (packTar starts a new one for the next pack)');
  t.ok(failed.streamEnded, 'the stream is ended, and the directory released');

  const whole = pack(small, path.join(work, 'small.tar'));
  t.same({ error: whole.error, gone: whole.gone, streamEnded: whole.streamEnded }, { gone: 0, streamEnded: true }, 'a pack on a new worker ends well');
  const got = await entries(createReadStream(path.join(work, 'small.tar')));
  t.same(
    got.map((e) => [e.name, e.type, e.body]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    [['src/', 'directory', ''], ...Array.from({ length: 5 }, (_, i) => [`src/f${i}.txt`, 'file', `file ${i}\n`])],
    'and its tar is whole',
  );
});

t.test("the holes of sparse files are read through up to the pack's allowance; past it the pack fails, naming the file", async (t) => {
  const MIB = 1024 * 1024;
  const dir = path.join(work, 'sparse');
  mkdirSync(dir);
  // Three files of 24 MiB that take no disk, and 8 MiB of zeros written (allocated: no holes).
  for (const name of ['a.img', 'b.img', 'c.img']) execFileSync('truncate', ['-s', String(24 * MIB), path.join(dir, name)]);
  writeFileSync(path.join(dir, 'zeros.bin'), Buffer.alloc(8 * MIB));
  const failed = pack(dir, path.join(work, 'sparse-refused.tar'), HEAP_MIB, 40 * MIB);
  t.match(
    failed.error,
    new RegExp(
      `^the workspace's sparse files hold more than ${40 * MIB} bytes of holes \\(the agent's disk budget\\), which a tar download would read as zeros \\(stopped reading "[abc]\\.img"\\)`,
    ),
    '72 MiB of holes against 40 MiB allowed: the pack fails, naming the file',
  );
  t.same({ gone: failed.gone, streamEnded: failed.streamEnded }, { gone: 0, streamEnded: true }, 'the worker goes on; the stream is ended');
  const whole = pack(dir, path.join(work, 'sparse.tar'), HEAP_MIB, 72 * MIB);
  t.equal(whole.error, undefined, 'with 72 MiB allowed it packs');
  const sizes = execFileSync('tar', ['-tvf', path.join(work, 'sparse.tar')], { encoding: 'utf8' });
  t.match(sizes, new RegExp(`${24 * MIB} .* a\\.img`), 'each sparse file whole in the tar');
  t.match(sizes, new RegExp(`${8 * MIB} .* zeros\\.bin`), 'and the written zeros, which are no holes');
});

// The tar worker's failure path, on a real worker thread: a walk that outgrows the worker's heap ends the worker alone, fails
// the pack in flight with an error naming the limit, releases its directory, and a pack on a new worker with the same heap is whole.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createReadStream, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { repoRoot } from '../helpers/cli.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-worker-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
/** Too small a heap for the listings of the large tree below (about 60 MB of names), room enough for a small one. */
const HEAP_MIB = 16;

/**
 * Packs run in a plain `node` child on the built module: under the tests' TypeScript loader a worker would compile its sources
 * in its own heap, and how much that takes depends on the loader's cache, not on the walk. The child writes the tar to `out`
 * and prints how the pack ended.
 */
const packer = path.join(work, 'pack.mjs');
writeFileSync(
  packer,
  `import { closeSync, constants, createWriteStream, openSync } from 'node:fs';
import { PackWorker } from ${JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist/management-api/src/workspace-files/tar-pack.js')).href)};
const [dir, heapMiB, out] = process.argv.slice(2);
const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
let gone = 0;
const worker = new PackWorker(() => gone++, Number(heapMiB));
const { stream, released } = worker.pack(fd, process.getuid(), { entries: 0, skipped: 0 });
const file = createWriteStream(out);
const error = await new Promise((resolve) => {
  stream.once('error', (err) => resolve(err.message));
  stream.pipe(file).once('finish', () => resolve(undefined));
});
await released;
closeSync(fd);
console.log(JSON.stringify({ error, gone, streamEnded: stream.destroyed || stream.readableEnded }));
process.exit(0);
`,
);
const pack = (dir: string, out: string): { error?: string; gone: number; streamEnded: boolean } =>
  JSON.parse(execFileSync(process.execPath, [packer, dir, String(HEAP_MIB), out], { encoding: 'utf8' })) as {
    error?: string;
    gone: number;
    streamEnded: boolean;
  };

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

t.test('a pack that outgrows the heap fails naming the limit; its directory is released; a pack on a new worker is whole', async (t) => {
  // Hard links of one file with long names, quick to make: 60,000 in a directory, in one below it and in one below that. A
  // directory's listing is held whole while it is walked, and so are its parents', so all three are held at once.
  const big = path.join(work, 'big');
  mkdirSync(path.join(big, 'sub', 'sub'), { recursive: true });
  for (const dir of [big, path.join(big, 'sub'), path.join(big, 'sub', 'sub')]) {
    // One file each: ext4 allows 65,000 links to a file.
    writeFileSync(path.join(dir, 'one'), 'one\n');
    for (let i = 0; i < 60_000; i++) linkSync(path.join(dir, 'one'), path.join(dir, `${'a-long-file-name-'.repeat(14)}${i}`));
  }
  const failed = pack(big, path.join(work, 'big.tar'));
  t.equal(failed.error, `the tar worker ran out of its ${HEAP_MIB} MiB heap: a directory too large to pack`, 'the download fails, naming the limit');
  t.equal(failed.gone, 1, 'the worker is gone (packTar starts a new one for the next pack)');
  t.ok(failed.streamEnded, 'the stream is ended, and the directory released');

  const small = path.join(work, 'small');
  mkdirSync(path.join(small, 'src'), { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(path.join(small, 'src', `f${i}.txt`), `file ${i}\n`);
  const whole = pack(small, path.join(work, 'small.tar'));
  t.same(whole, { gone: 0, streamEnded: true }, 'a pack on a new worker with the same heap ends well');
  const got = await entries(createReadStream(path.join(work, 'small.tar')));
  t.same(
    got.map((e) => [e.name, e.type, e.body]),
    [['src/', 'directory', ''], ...Array.from({ length: 5 }, (_, i) => [`src/f${i}.txt`, 'file', `file ${i}\n`])],
    'and its tar is whole',
  );
});

// The tar worker's failure path, on a real worker thread: a walk that outgrows the worker's heap ends the worker alone, fails
// the pack in flight with an error naming the limit, releases its directory, and the next pack (on a new worker) is whole.
import t from 'tap';
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { PackWorker } from '../../management-api/src/workspace-files/tar-pack.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-worker-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const uid = process.getuid?.() ?? 0;
/**
 * Too small a heap for the listings of the large tree below (about 60 MB of names), room enough for a small one. (The worker
 * runs these sources through the tests' TypeScript loader, which takes about 35 MiB of it: 32 MiB is too small for any pack.)
 */
const HEAP_MIB = 48;

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

t.test('a pack that outgrows the heap fails naming the limit; its directory is released; the next pack runs on a new worker', async (t) => {
  // Hard links of one file with long names, quick to make: 60,000 in a directory, in one below it and in one below that. A
  // directory's listing is held whole while it is walked, and so are its parents', so all three are held at once.
  const big = path.join(work, 'big');
  mkdirSync(path.join(big, 'sub', 'sub'), { recursive: true });
  for (const dir of [big, path.join(big, 'sub'), path.join(big, 'sub', 'sub')]) {
    // One file each: ext4 allows 65,000 links to a file.
    writeFileSync(path.join(dir, 'one'), 'one\n');
    for (let i = 0; i < 60_000; i++) linkSync(path.join(dir, 'one'), path.join(dir, `${'a-long-file-name-'.repeat(14)}${i}`));
  }
  const bigDir = await open(big, DIR_FLAGS);
  t.teardown(() => bigDir.close());

  let gone = 0;
  const worker = new PackWorker(() => gone++, HEAP_MIB);
  const report = { entries: 0, skipped: 0 };
  const { stream, released } = worker.pack(bigDir.fd, uid, report);
  await t.rejects(
    entries(stream),
    { message: `the tar worker ran out of its ${HEAP_MIB} MiB heap: a directory too large to pack` },
    'the download fails, naming the limit',
  );
  await released;
  t.equal(gone, 1, 'the worker is gone (packTar starts a new one for the next pack)');
  t.ok(stream.destroyed, 'the stream is ended');

  const small = path.join(work, 'small');
  mkdirSync(path.join(small, 'src'), { recursive: true });
  for (let i = 0; i < 5; i++) writeFileSync(path.join(small, 'src', `f${i}.txt`), `file ${i}\n`);
  const smallDir = await open(small, DIR_FLAGS);
  t.teardown(() => smallDir.close());
  const next = new PackWorker(() => undefined, HEAP_MIB);
  const after = next.pack(smallDir.fd, uid, { entries: 0, skipped: 0 });
  const got = await entries(after.stream);
  await after.released;
  t.same(
    got.map((e) => [e.name, e.type, e.body]),
    [['src/', 'directory', ''], ...Array.from({ length: 5 }, (_, i) => [`src/f${i}.txt`, 'file', `file ${i}\n`])],
    'a pack on a new worker with the same heap is whole',
  );
});

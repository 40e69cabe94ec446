// Batches handed back to the tar worker (PackWorker.recycle): packs that reuse them, several at once, make the same bytes as packs
// that never do; a batch handed back is the worker's (empty here); anything that is not one of its batches, or comes back twice, is
// left alone. And a pack that fails before its first byte says so through `started`.
import t from 'tap';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { PackWorker } from '../../management-api/src/workspace-files/tar-pack.js';
import { BATCH_BYTES } from '../../management-api/src/workspace-files/tar-pack-protocol.js';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-recycle-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

// About 13 batches of files that differ everywhere: a batch written twice, or read after it was handed back, shows in the bytes.
const tree = path.join(work, 'tree');
mkdirSync(path.join(tree, 'sub'), { recursive: true });
for (let i = 0; i < 5; i++) {
  const body = Buffer.alloc(2_500_000 + i * 333);
  for (let off = 0; off < body.length; off += 4) body.writeUInt32LE((i * 0x9e3779b1 + off) >>> 0, Math.min(off, body.length - 4));
  writeFileSync(path.join(tree, i % 2 ? 'sub' : '', `big${i}.bin`), body);
}
for (let i = 0; i < 300; i++) writeFileSync(path.join(tree, 'sub', `small${i}.txt`), `small file ${i}\n`.repeat(1 + (i % 40)));

// Unreferenced while no pack runs: it does not hold the test open.
const worker = new PackWorker(() => undefined);

/** The tar of `dir`, its batches copied as they come; each handed back right after, when `recycle` is set. */
async function pack(dir: string, recycle: boolean): Promise<{ tar: Buffer; batches: number; handedBack: number }> {
  const fd = openSync(dir, DIR_FLAGS);
  try {
    const { stream, released, started } = worker.pack(fd, process.getuid!(), Number.POSITIVE_INFINITY, { entries: 0, skipped: 0 });
    await started;
    const copies: Buffer[] = [];
    let handedBack = 0;
    for await (const batch of flowing(stream)) {
      copies.push(Buffer.from(batch));
      if (!recycle) continue;
      worker.recycle(batch);
      if (batch.buffer.byteLength === 0) handedBack++;
    }
    await released;
    return { tar: Buffer.concat(copies), batches: copies.length, handedBack };
  } finally {
    closeSync(fd);
  }
}

/** Each batch as it was pushed (a paused stream's read() would join them into new buffers). */
async function* flowing(stream: Readable): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let ended = false;
  let failed: Error | undefined;
  let wake: (() => void) | undefined;
  stream.on('data', (b: Buffer) => queue.push(b));
  stream.once('end', () => (ended = true));
  stream.once('error', (err) => (failed = err));
  const poke = () => wake?.();
  stream.on('data', poke).once('end', poke).once('error', poke);
  for (;;) {
    while (queue.length > 0) yield queue.shift()!;
    if (failed) throw failed;
    if (ended) return;
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

t.test('packs that hand every batch back, three at once, make the bytes packs that never do make', async (t) => {
  const reference = await pack(tree, false);
  t.ok(reference.batches > 10, `the tree is ${reference.batches} batches`);
  t.equal(reference.tar.length % 512, 0, 'a tar of whole blocks');
  const recycled = await Promise.all([pack(tree, true), pack(tree, true), pack(tree, true)]);
  for (const [i, r] of recycled.entries()) {
    t.ok(r.tar.equals(reference.tar), `pack ${i + 1}: byte for byte`);
    t.equal(r.handedBack, r.batches, `pack ${i + 1}: each of its ${r.batches} batches handed back (empty here from then on)`);
  }
  const after = await pack(tree, false);
  t.ok(after.tar.equals(reference.tar), 'and a pack after them, on reused batches, too');
});

t.test('only the worker batches not yet handed back are taken', async (t) => {
  const foreign = Buffer.alloc(BATCH_BYTES, 1);
  worker.recycle(foreign);
  t.equal(foreign.length, BATCH_BYTES, 'a buffer that is not one of its batches stays as it was');
  const fd = openSync(tree, DIR_FLAGS);
  const { stream, released } = worker.pack(fd, process.getuid!(), Number.POSITIVE_INFINITY, { entries: 0, skipped: 0 });
  const first = await new Promise<Buffer>((resolve) => stream.once('data', resolve));
  const view = Buffer.from(first.buffer, first.byteOffset, 16);
  worker.recycle(first);
  t.equal(first.buffer.byteLength, 0, 'a batch handed back is the worker’s');
  t.doesNotThrow(() => worker.recycle(first), 'handing it back again does nothing');
  t.equal(view.length, 0, 'every view of it is empty');
  stream.destroy();
  await released;
  closeSync(fd);
});

t.test('a pack that fails before its first byte rejects started with the reason', async (t) => {
  let dir = path.join(work, 'deep');
  const top = dir;
  for (let i = 0; i <= MAX_TREE_DEPTH; i++) dir = path.join(dir, 'd');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(top, DIR_FLAGS);
  const { stream, released, started } = worker.pack(fd, process.getuid!(), Number.POSITIVE_INFINITY, { entries: 0, skipped: 0 });
  stream.on('error', () => undefined);
  await t.rejects(started, /deep|levels/, 'started rejects');
  await released;
  closeSync(fd);
});

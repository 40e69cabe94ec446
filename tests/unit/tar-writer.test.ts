// The tar writer on real files, read back by an independent parser (tar-stream) and by GNU tar: batches of any size hold a
// valid tar, however headers, bodies and padding fall across them; a file that grew is cut to its header's size, one that
// shrank fails the pack; names a plain header cannot hold get pax records; no batch is sent before the last one was taken.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import { TarWriter } from '../../management-api/src/workspace-files/tar-writer.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-writer-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

type Read = { name: string; type: string; mode: number; mtime: number; linkname?: string; body: Buffer };

/** Every entry of a tar, by tar-stream. */
async function parse(bytes: Buffer): Promise<Read[]> {
  const extract = tar.extract();
  const out: Read[] = [];
  extract.on('entry', (h, body, next) => {
    const parts: Buffer[] = [];
    body.on('data', (b) => void parts.push(b as Buffer));
    body.on('end', () => {
      out.push({
        name: h.name,
        type: h.type ?? '',
        mode: h.mode ?? 0,
        mtime: h.mtime?.getTime() ?? 0,
        ...(h.linkname ? { linkname: h.linkname } : {}),
        body: Buffer.concat(parts),
      });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    extract.once('finish', resolve);
    extract.once('error', reject);
  });
  Readable.from([bytes]).pipe(extract);
  await done;
  return out;
}

/** A file of `content`, open for reading. */
function fileOf(name: string, content: Buffer): number {
  const p = path.join(work, name);
  writeFileSync(p, content);
  return openSync(p, 'r');
}

for (const batchBytes of [700, 512, 4096, 1 << 20]) {
  t.test(`batches of ${batchBytes} bytes hold one valid tar`, async (t) => {
    const batches: Buffer[] = [];
    let sending = 0;
    let overlapped = false;
    const out = new TarWriter(
      async (batch) => {
        overlapped ||= sending > 0;
        sending++;
        // The receiver takes its time: the writer must wait for it.
        await new Promise((resolve) => setImmediate(resolve));
        batches.push(batch);
        sending--;
      },
      () => Buffer.allocUnsafeSlow(batchBytes),
    );
    const mtime = new Date(1_600_000_000_000);
    const big = Buffer.alloc(3 * batchBytes + 123, 'b');
    big.writeUInt32BE(0xdeadbeef, big.length - 4);
    const longName = `deep/${'a-long-segment-'.repeat(12)}.txt`;
    const fds = [fileOf('small', Buffer.from('small\n')), fileOf('big', big), fileOf('grew', Buffer.from('0123456789')), fileOf('long', Buffer.from('long\n'))];
    try {
      await out.entry({ path: 'dir/', type: 'Directory', mode: 0o750, mtime });
      await out.file({ path: 'dir/small.txt', type: 'File', mode: 0o640, mtime, size: 6 }, fds[0]!);
      await out.file({ path: 'dir/big.bin', type: 'File', mode: 0o644, mtime, size: big.length }, fds[1]!);
      // Headers state the size a file had when opened: 4 where it now holds 10.
      await out.file({ path: 'grew.txt', type: 'File', mode: 0o600, mtime, size: 4 }, fds[2]!);
      await out.file({ path: longName, type: 'File', mode: 0o644, mtime, size: 5 }, fds[3]!);
      await out.entry({ path: 'ünïcødé-名前', type: 'SymbolicLink', mode: 0o777, mtime, linkpath: `../${'far-target-'.repeat(12)}` });
      await out.end();
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    t.notOk(overlapped, 'no batch was sent before the one before it was taken');
    t.ok(
      batches.every((b) => b.length <= batchBytes),
      'no batch is larger than asked',
    );
    const whole = Buffer.concat(batches);
    t.equal(whole.length % 512, 0, 'the tar is whole blocks');
    t.ok(
      whole.subarray(-1024).every((b) => b === 0),
      'and ends with two zero blocks',
    );
    const got = await parse(whole);
    t.same(
      got.map((e) => [e.name, e.type, e.mode, e.mtime, e.linkname ?? null]),
      [
        ['dir/', 'directory', 0o750, mtime.getTime(), null],
        ['dir/small.txt', 'file', 0o640, mtime.getTime(), null],
        ['dir/big.bin', 'file', 0o644, mtime.getTime(), null],
        ['grew.txt', 'file', 0o600, mtime.getTime(), null],
        [longName, 'file', 0o644, mtime.getTime(), null],
        ['ünïcødé-名前', 'symlink', 0o777, mtime.getTime(), `../${'far-target-'.repeat(12)}`],
      ],
      'names (long and not ASCII too), types, modes, mtimes and link targets',
    );
    const body = (name: string) => got.find((e) => e.name === name)?.body;
    t.same(body('dir/small.txt'), Buffer.from('small\n'));
    t.ok(body('dir/big.bin')?.equals(big), 'a body larger than several batches, byte for byte');
    t.same(body('grew.txt'), Buffer.from('0123'), 'a file that grew is cut to its size');
    const tarFile = path.join(work, `out-${batchBytes}.tar`);
    writeFileSync(tarFile, whole);
    t.equal(execFileSync('tar', ['-tf', tarFile], { encoding: 'utf8' }).trim().split('\n').length, 6, 'GNU tar lists every entry');
  });
}

t.test('a file made shorter than its header says fails the pack, naming it: never padded with zeros it did not hold', async (t) => {
  const sent: Buffer[] = [];
  const out = new TarWriter(
    async (batch) => void sent.push(batch),
    () => Buffer.allocUnsafeSlow(4096),
  );
  const fd = fileOf('shrank', Buffer.from('only this'));
  try {
    await t.rejects(out.file({ path: 'shrank.txt', type: 'File', mode: 0o600, mtime: new Date(), size: 20 }, fd), {
      code: 'ESHRANK',
      message: /"shrank\.txt" was made shorter while it was packed \(9 of its 20 bytes/,
    });
  } finally {
    closeSync(fd);
  }
});

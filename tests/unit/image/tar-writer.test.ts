// The test image's tar writer, read back by GNU tar: names past the ustar limits (pax headers),
// symlinks, owners and modes, file bytes, and the sha256 it reports (the layer's diff id).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { TarWriter } from '../../../scripts/cli/image/tar-writer.js';

t.test('GNU tar reads back every entry as written', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-'));
  t.teardown(() => execFileSync('rm', ['-rf', dir]));
  const source = path.join(dir, 'source.bin');
  const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
  writeFileSync(source, bytes);
  const longDir = `opt/${'d'.repeat(120)}/${'e'.repeat(90)}`;
  const longName = `${longDir}/${'f'.repeat(150)}.txt`;
  const longTarget = `../${'t'.repeat(140)}`;
  const tarFile = path.join(dir, 'layer.tar');
  const fd = openSync(tarFile, 'w');
  const w = new TarWriter(fd);
  w.add({ type: 'dir', path: 'tmp', mode: 0o1777, uid: 0, gid: 0 });
  w.add({ type: 'dir', path: 'home', mode: 0o750, uid: 1000, gid: 1000 });
  w.add({ type: 'file', path: 'home/hello.txt', mode: 0o600, uid: 1000, gid: 1000, size: 6, content: Buffer.from('hello\n') });
  w.add({ type: 'file', path: 'big.bin', mode: 0o755, uid: 0, gid: 0, size: bytes.length, source });
  w.add({ type: 'symlink', path: 'bin', target: 'usr/bin', uid: 0, gid: 0 });
  w.add({ type: 'dir', path: longDir, mode: 0o755, uid: 0, gid: 0 });
  w.add({ type: 'file', path: longName, mode: 0o644, uid: 0, gid: 0, size: 2, content: Buffer.from('ok') });
  w.add({ type: 'symlink', path: `${longDir}/link`, target: longTarget, uid: 0, gid: 0 });
  const { sha256, size } = w.finish();
  closeSync(fd);
  const file = readFileSync(tarFile);
  t.equal(size, file.length, 'the reported size is the file size');
  t.equal(sha256, createHash('sha256').update(file).digest('hex'), "the reported sha256 is the file's");
  t.equal(size % 512, 0, 'whole blocks');

  const listing = execFileSync('tar', ['--numeric-owner', '-tvf', tarFile], { encoding: 'utf8' });
  t.match(listing, /^drwxrwxrwt 0\/0 .* tmp\/$/m, 'sticky world-writable /tmp');
  t.match(listing, /^drwxr-x--- 1000\/1000 .* home\/$/m, 'a directory owned by uid 1000');
  t.match(listing, /^-rw------- 1000\/1000 .* home\/hello\.txt$/m, 'a 0600 file owned by uid 1000');
  t.match(listing, /^lrwxrwxrwx 0\/0 .* bin -> usr\/bin$/m, 'a symlink');
  t.ok(listing.includes(longName), 'a name longer than ustar allows');

  const out = path.join(dir, 'out');
  mkdirSync(out);
  execFileSync('tar', ['-xf', tarFile, '-C', out]);
  t.same(readFileSync(path.join(out, 'big.bin')), bytes, 'a file read from disk in chunks, byte for byte');
  t.equal(lstatSync(path.join(out, 'big.bin')).mode & 0o7777, 0o755);
  t.equal(readFileSync(path.join(out, longName), 'utf8'), 'ok');
  t.equal(readlinkSync(path.join(out, longDir, 'link')), longTarget, 'a symlink target longer than ustar allows');
});

t.test('a file that shrinks while archived is an error naming it', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-tar-'));
  t.teardown(() => execFileSync('rm', ['-rf', dir]));
  writeFileSync(path.join(dir, 'small'), 'abc');
  const fd = openSync(path.join(dir, 'x.tar'), 'w');
  t.teardown(() => closeSync(fd));
  const w = new TarWriter(fd);
  t.throws(
    () => w.add({ type: 'file', path: 'small', mode: 0o644, uid: 0, gid: 0, size: 10, source: path.join(dir, 'small') }),
    /small shrank while it was being archived/,
  );
});

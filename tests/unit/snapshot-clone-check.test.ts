// The comparison that decides whether a snapshot keeps its clone: entries changed around the clone's taking, as the
// capture read them, against a real directory standing for the clone; each way one can differ makes it false.
import t from 'tap';
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, openSync, closeSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { cloneHoldsSuspects, type Suspect } from '../../management-api/src/snapshots/clone-check.js';
import { CHUNK_BYTES } from '../../management-api/src/snapshots/snapshot-manifest.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-clone-check-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

const clone = path.join(work, 'clone');
mkdirSync(path.join(clone, 'src/deep'), { recursive: true });
const big = Buffer.alloc(CHUNK_BYTES + 5, 3);
writeFileSync(path.join(clone, 'src/deep/big.bin'), big);
writeFileSync(path.join(clone, 'src/a.ts'), 'a\n');
symlinkSync('deep/big.bin', path.join(clone, 'src/link'));
symlinkSync('src', path.join(clone, 'via-link'));

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const mtimeNs = (rel: string) => String(lstatSync(path.join(clone, rel), { bigint: true }).mtimeNs);
const mode = (rel: string) => lstatSync(path.join(clone, rel)).mode & 0o777;
const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

const bigFile: Suspect = {
  type: 'file',
  rel: 'src/deep/big.bin',
  mode: mode('src/deep/big.bin'),
  mtimeNs: mtimeNs('src/deep/big.bin'),
  size: big.length,
  chunks: [sha(big.subarray(0, CHUNK_BYTES)), sha(big.subarray(CHUNK_BYTES))],
};
const srcDir: Suspect = { type: 'dir', rel: 'src', mode: mode('src'), mtimeNs: mtimeNs('src'), names: ['a.ts', 'deep', 'link'] };
const root: Suspect = { type: 'dir', rel: '', mode: mode('.'), mtimeNs: mtimeNs('.'), names: ['src', 'via-link'] };
const link: Suspect = { type: 'symlink', rel: 'src/link', mtimeNs: mtimeNs('src/link'), target: 'deep/big.bin' };

const fd = openSync(clone, DIR_FLAGS);
t.teardown(() => closeSync(fd));
const holds = (suspects: Suspect[], who = owner) => cloneHoldsSuspects(fd, suspects, who);

t.test('the clone holds each suspect as read: a file of two chunks, directories (the root too), a link', async (t) => {
  t.equal(holds([bigFile, srcDir, root, link]), true);
  t.equal(holds([]), true, 'no suspect: nothing to compare');
});

t.test('each difference makes it false', async (t) => {
  const cases: Array<[string, Suspect]> = [
    ['a chunk', { ...bigFile, chunks: [bigFile.chunks[0]!, sha(Buffer.from('other'))] }],
    ['one chunk fewer', { ...bigFile, chunks: [bigFile.chunks[0]!], size: CHUNK_BYTES }],
    ['one chunk more', { ...bigFile, chunks: [...bigFile.chunks, bigFile.chunks[1]!] }],
    ['the size', { ...bigFile, size: big.length + 1 }],
    ["a file's mode", { ...bigFile, mode: bigFile.mode ^ 0o100 }],
    ["a file's mtime", { ...bigFile, mtimeNs: String(BigInt(bigFile.mtimeNs) + 1n) }],
    ['a file not there', { ...bigFile, rel: 'src/deep/gone.bin' }],
    ['a directory read as a file', { ...bigFile, rel: 'src/deep' }],
    ['a file reached through a link', { ...bigFile, rel: 'via-link/deep/big.bin' }],
    ['a name more', { ...srcDir, names: [...(srcDir as { names: string[] }).names, 'new.ts'] }],
    ['a name fewer', { ...srcDir, names: ['a.ts', 'deep'] }],
    ["a directory's mode", { ...srcDir, mode: srcDir.mode ^ 0o002 }],
    ["a directory's mtime", { ...srcDir, mtimeNs: '1' }],
    ["a link's target", { ...link, target: 'deep/other' }],
    ['a link that is a directory there', { ...link, rel: 'src/deep' }],
  ];
  for (const [what, suspect] of cases) t.equal(holds([bigFile, suspect]), false, what);
  t.equal(holds([bigFile], { uid: owner.uid + 1, gid: owner.gid }), false, 'another owner');
});

// A snapshot chunk damaged in a pack is caught by the real CLI: `agentbox backup` refuses a box whose store holds one (naming
// the snapshot, file and pack, nothing written), and `backup verify` and `restore` refuse a backup whose pack was damaged
// after it was made, even with its index's hashes rewritten to match.
// A pack index edited to give a chunk an impossible length is named, not allocated.
import t from 'tap';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runtimePaths } from '../../management-api/src/runtime-paths.js';
import { indexFile, packFile } from '../../management-api/src/snapshots/object-store.js';
import { SnapshotStore } from '../../management-api/src/snapshots/snapshot-store.js';
import { DIR_FLAGS } from '../../management-api/src/workspace-files/dir-fd.js';
import { runAgentbox } from '../helpers/cli.js';
import { flipChunkByte } from '../helpers/damaged-chunk.js';

const work = mkdtempSync(path.join(tmpdir(), 'agentbox-backup-chunks-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const agentbox = (...args: string[]) => runAgentbox(args, { cwd: work });

// A box's state holding one snapshot of a small tree, made by the store itself.
const root = path.join(work, 'box');
const storeDir = path.join(runtimePaths({ AGENTBOX_ROOT: root }).stateDir, 'snapshots');
const ws = path.join(work, 'ws');
mkdirSync(path.join(ws, 'src'), { recursive: true });
const damagedFile = Buffer.from(`export const kept = ${'"in a snapshot" + '.repeat(40)}"";\n`);
writeFileSync(path.join(ws, 'src/kept.ts'), damagedFile);
writeFileSync(path.join(ws, 'README'), 'a tree\n');
const store = new SnapshotStore({ dir: storeDir, logger: pino({ level: 'silent' }) });
let snapshotId: string;
t.before(async () => {
  await store.open();
  const dir = await open(ws, DIR_FLAGS);
  snapshotId = (
    await store
      .create({ rootFd: dir.fd, ownUid: process.getuid?.() ?? 0, agent: { id: 'agt_backup', name: 'backup', cwd: 'backup' } })
      .finally(() => dir.close())
  ).id;
  await store.close();
});

t.test('a box whose store holds a damaged chunk is not backed up: the snapshot, file and pack are named', async (t) => {
  const pack = flipChunkByte(storeDir, damagedFile, 10);
  const to = path.join(work, 'never');
  const made = agentbox('backup', '--root', root, '--to', to);
  t.equal(made.code, 1, made.stderr);
  t.match(
    made.stderr,
    `the snapshot store ${storeDir} is damaged: snapshot ${snapshotId}, file src/kept.ts: chunk ${createHash('sha256').update(damagedFile).digest('hex')} in pack ${packFile(storeDir, pack)} does not match its sha256`,
  );
  t.match(made.stderr, `delete it (agentbox snapshot rm ${snapshotId}) and back up again`, 'says the fix');
  t.same(
    readdirSync(work).filter((n) => n.startsWith('never')),
    [],
    'nothing written',
  );
  flipChunkByte(storeDir, damagedFile, 10);
});

t.test('a pack damaged in a backup, its index rewritten to match, fails verify and restore naming the snapshot, file and pack', async (t) => {
  const backup = path.join(work, 'backup');
  const made = agentbox('backup', '--root', root, '--to', backup);
  t.equal(made.code, 0, made.stderr);
  t.match(agentbox('backup', 'verify', backup), { code: 0, stdout: /whole/ }, 'whole as made');

  const copy = path.join(backup, 'state/snapshots');
  const pack = flipChunkByte(copy, damagedFile, 10);
  const indexFile = path.join(backup, 'backup.json');
  const index = JSON.parse(readFileSync(indexFile, 'utf8')) as { files: Array<{ path: string; sha256: string; bytes: number }> };
  const packEntry = index.files.find((f) => f.path === `state/snapshots/packs/${pack}.pack`)!;
  const bytes = readFileSync(packFile(copy, pack));
  packEntry.sha256 = createHash('sha256').update(bytes).digest('hex');
  packEntry.bytes = statSync(packFile(copy, pack)).size;
  writeFileSync(indexFile, JSON.stringify(index));

  const said = `snapshot ${snapshotId}, file src/kept.ts: chunk ${createHash('sha256').update(damagedFile).digest('hex')} in pack ${packFile(copy, pack)} does not match its sha256`;
  const verify = agentbox('backup', 'verify', backup);
  t.equal(verify.code, 1, verify.stdout);
  t.match(verify.stdout, said);
  const json = agentbox('backup', 'verify', backup, '--json');
  t.match(JSON.parse(json.stdout), { ok: false, problems: [said] });
  const newRoot = path.join(work, 'restored');
  const restore = agentbox('restore', backup, '--root', newRoot);
  t.equal(restore.code, 1, restore.stderr);
  t.match(restore.stderr, `the backup is not whole: ${said}`);
  t.notOk(existsSync(newRoot), 'nothing restored');
});

t.test('a pack index edited to give a chunk more bytes than any chunk has is named, never allocated', async (t) => {
  const backup = path.join(work, 'backup-lengths');
  t.equal(agentbox('backup', '--root', root, '--to', backup).code, 0);
  const copy = path.join(backup, 'state/snapshots');
  const hash = createHash('sha256').update(damagedFile).digest('hex');
  const pack = readdirSync(path.join(copy, 'packs'))
    .filter((n) => n.endsWith('.idx'))
    .find((n) => hash in (JSON.parse(readFileSync(path.join(copy, 'packs', n), 'utf8')) as Record<string, unknown>))!
    .slice(0, -'.idx'.length);
  const idx = indexFile(copy, pack);
  const original = readFileSync(idx, 'utf8');
  const indexJson = path.join(backup, 'backup.json');
  const backupIndex = readFileSync(indexJson, 'utf8');
  for (const length of [5e9, -1]) {
    const chunks = JSON.parse(original) as Record<string, [number, number]>;
    chunks[hash] = [chunks[hash]![0], length];
    const text = JSON.stringify(chunks);
    writeFileSync(idx, text);
    // The backup's own index rewritten to match, as an editor would.
    const index = JSON.parse(backupIndex) as { files: Array<{ path: string; sha256: string; bytes: number }> };
    const entry = index.files.find((f) => f.path === `state/snapshots/packs/${pack}.idx`)!;
    entry.sha256 = createHash('sha256').update(text).digest('hex');
    entry.bytes = Buffer.byteLength(text);
    writeFileSync(indexJson, JSON.stringify(index));
    t.match(agentbox('backup', 'verify', backup), {
      code: 1,
      stdout: `chunk ${hash} in pack ${packFile(copy, pack)}: the pack's index places it at ${chunks[hash]![0]}, ${length} bytes long, which no chunk is`,
    });
  }
});

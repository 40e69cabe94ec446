// The records of the files API's temporaries and their sweep, on a directory of the test's own: the names' forms, what a record must hold, and what the sweep leaves.
import t from 'tap';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openWorkspace } from '../../management-api/src/workspace-files/agent-workspace.js';
import { fileTemporary, hasTemporaryForm, TemporaryRecords, uploadStaging } from '../../management-api/src/workspace-files/temporary-records.js';
import { sweepTemporaries } from '../../management-api/src/workspace-files/temporary-sweep.js';
import { nameBytes } from '../../management-api/src/fs-names.js';

const silent = pino({ level: 'silent' });

/** A box's workspace directory with one agent's directory `a`, and a records directory beside it. */
async function setUp(t: { teardown(fn: () => Promise<void>): void }) {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentbox-temporaries-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const workspaceDir = path.join(dir, 'workspace');
  await mkdir(path.join(workspaceDir, 'a', 'sub'), { recursive: true });
  const records = new TemporaryRecords(path.join(dir, 'records'));
  return { workspaceDir, records, agentDir: path.join(workspaceDir, 'a') };
}

t.test('the names the writes make have the forms the sweep removes, and only those do', async (t) => {
  t.ok(hasTemporaryForm('file', fileTemporary('notes.txt')));
  t.ok(hasTemporaryForm('upload', uploadStaging()));
  const longest = fileTemporary('é'.repeat(127));
  t.ok(hasTemporaryForm('file', longest) && nameBytes(longest) <= 255, 'a temporary beside a 254-byte name stays within 255 bytes');
  for (const name of ['notes.txt', '.notes.txt.tmp', '.x.0123456789ab.tmp.old', '.x.0123456789AB.tmp', '.abx-upload-0123', 'a/.x.0123456789ab.tmp'])
    t.notOk(hasTemporaryForm('file', name) || hasTemporaryForm('upload', name), `${name} is no temporary`);
  t.notOk(hasTemporaryForm('upload', fileTemporary('x')), 'each kind its own form');
});

t.test('a record is written before, read back as written (bytes that are not UTF-8 too), and gone after', async (t) => {
  const { workspaceDir, records } = await setUp(t);
  const ws = await openWorkspace(workspaceDir, 'a', records);
  t.teardown(() => ws.close());
  await rm(records.dir, { recursive: true, force: true });
  const name = fileTemporary('caf\udce9.txt');
  const recorded = ws.temporaries!.begin(['sub', 'caf\udce9'], name, 'file');
  const [file] = await records.list();
  t.ok(file, 'the records directory is made again when it went');
  t.match(await records.read(file!), { kind: 'file', workspace: { dir: 'a', dev: /^\d+$/, ino: /^\d+$/, born: /^\d+$/ }, parent: ['sub', 'caf\udce9'], name });
  recorded.end();
  t.same(await records.list(), []);
});

t.test('a record that is not one is unreadable: cut short, outside the workspace, a name not of its form', async (t) => {
  const { records } = await setUp(t);
  await mkdir(records.dir);
  const good = { kind: 'upload', workspace: { dir: 'a', dev: '1', ino: '2', born: '3' }, parent: ['x'], name: '.abx-upload-0123456789abcdef' };
  const bad: Record<string, unknown> = {
    cut: '{"kind":"up',
    absolute: { ...good, workspace: { ...good.workspace, dir: '/etc' } },
    climbs: { ...good, workspace: { ...good.workspace, dir: 'a/../..' } },
    dotdot: { ...good, parent: ['..'] },
    slash: { ...good, parent: ['x/y'] },
    name: { ...good, name: 'precious' },
    kind: { ...good, kind: 'other' },
    dev: { ...good, workspace: { ...good.workspace, dev: -1 } },
    born: { ...good, workspace: { dir: 'a', dev: '1', ino: '2' } },
  };
  await writeFile(path.join(records.dir, 'good.json'), JSON.stringify(good));
  for (const [n, v] of Object.entries(bad)) await writeFile(path.join(records.dir, `${n}.json`), typeof v === 'string' ? v : JSON.stringify(v));
  t.same(await records.read('good.json'), good);
  for (const n of Object.keys(bad)) t.match(await records.read(`${n}.json`), { unreadable: String }, n);
});

t.test('the sweep removes only the recorded temporary of the same workspace, of the type it was made', async (t) => {
  const { workspaceDir, records, agentDir } = await setUp(t);
  const ws = await openWorkspace(workspaceDir, 'a', records);
  const made = fileTemporary('kept.txt');
  const replaced = fileTemporary('replaced.txt');
  const other = uploadStaging();
  ws.temporaries!.begin(['sub'], made, 'file');
  ws.temporaries!.begin(['sub'], replaced, 'file');
  ws.temporaries!.begin([], other, 'upload');
  await ws.close();
  await writeFile(path.join(agentDir, 'sub', made), 'half');
  // A directory where the file was: the agent's, not the box's temporary.
  await mkdir(path.join(agentDir, 'sub', replaced));
  await writeFile(path.join(agentDir, 'sub', replaced, 'x'), 'x');
  const report = await sweepTemporaries(records, await records.list(), workspaceDir, silent);
  t.same(report, { removed: 1, gone: 1, left: 1 });
  t.same((await readdir(path.join(agentDir, 'sub'))).sort(), [replaced], 'the file removed, the directory in its place left');
  t.same(await records.list(), []);
});

t.test('a workspace made again at the same path is not the one recorded: nothing in it is removed', async (t) => {
  const { workspaceDir, records, agentDir } = await setUp(t);
  const ws = await openWorkspace(workspaceDir, 'a', records);
  const name = fileTemporary('x');
  ws.temporaries!.begin([], name, 'file');
  await ws.close();
  // Made again at once, it often has the inode number of the one removed: its birth tells them apart.
  await rm(agentDir, { recursive: true });
  await mkdir(agentDir);
  await writeFile(path.join(agentDir, name), 'the new agent’s');
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, silent), { removed: 0, gone: 1, left: 0 });
  t.equal(await readFile(path.join(agentDir, name), 'utf8'), 'the new agent’s');
});

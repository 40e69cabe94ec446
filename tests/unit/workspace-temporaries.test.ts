// The records of the files API's temporaries and their sweep, on a directory of the test's own: the names' forms, what a record must hold, and what the sweep leaves.
import t from 'tap';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { openWorkspace } from '../../management-api/src/workspace-files/agent-workspace.js';
import {
  fileTemporary,
  forkStaging,
  hasTemporaryForm,
  replacedAside,
  restoreStaging,
  TemporaryRecords,
  uploadStaging,
} from '../../management-api/src/workspace-files/temporary-records.js';
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
  t.ok(hasTemporaryForm('fork', forkStaging()) && hasTemporaryForm('restore', restoreStaging()));
  t.notOk(hasTemporaryForm('fork', restoreStaging()) || hasTemporaryForm('restore', forkStaging()) || hasTemporaryForm('restore', uploadStaging()));
  const staging = restoreStaging();
  t.equal(replacedAside(staging), `.abx-replaced-${staging.slice('.abx-restore-'.length)}`, 'the aside of a restore shares its random part');
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
    replacesOnUpload: { ...good, replaces: 'a' },
    restoreReplacesNothing: { ...good, kind: 'restore', name: '.abx-restore-0123456789ab' },
    restoreReplacesUp: { ...good, kind: 'restore', name: '.abx-restore-0123456789ab', replaces: '..' },
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

t.test('the parents a write made for itself go with its temporary, each only while empty; a record says which', async (t) => {
  const { workspaceDir, records, agentDir } = await setUp(t);
  const ws = await openWorkspace(workspaceDir, 'a', records);
  // A PUT to sub/new/deeper/f.txt made new/ and new/deeper/ (from index 1 of its parent's segments); sub/ was there.
  const put = fileTemporary('f.txt');
  ws.temporaries!.begin(['sub', 'new', 'deeper'], put, 'file', undefined, 1);
  // An upload into made/ that made it; the agent wrote into it since.
  const upload = uploadStaging();
  ws.temporaries!.begin(['made'], upload, 'upload', undefined, 0);
  // A PUT killed before its temporary was made: its parent, made, is empty.
  ws.temporaries!.begin(['early'], fileTemporary('g.txt'), 'file', undefined, 0);
  await ws.close();
  await mkdir(path.join(agentDir, 'sub', 'new', 'deeper'), { recursive: true });
  await writeFile(path.join(agentDir, 'sub', 'new', 'deeper', put), 'half');
  await mkdir(path.join(agentDir, 'made', upload), { recursive: true });
  await writeFile(path.join(agentDir, 'made', 'agents-own.txt'), 'kept');
  await mkdir(path.join(agentDir, 'early'));
  const report = await sweepTemporaries(records, await records.list(), workspaceDir, silent);
  t.same(report, { removed: 2, gone: 1, left: 0 });
  t.same(await readdir(path.join(agentDir, 'sub')), [], 'new/deeper/ and new/ removed; sub/, there before, kept');
  t.same(await readdir(path.join(agentDir, 'made')), ['agents-own.txt'], 'a made directory the agent wrote into stays, with what it holds');
  t.same((await readdir(agentDir)).sort(), ['made', 'sub'], 'the parent of the write that never made its temporary is gone too');
});

t.test('madeFrom outside the recorded parents, or on a fork or a restore, makes a record unreadable', async (t) => {
  const { records } = await setUp(t);
  await mkdir(records.dir, { recursive: true });
  const base = { workspace: { dir: 'a', dev: '1', ino: '2', born: '3' } };
  const cases = [
    { ...base, kind: 'file', parent: ['x'], name: fileTemporary('f'), madeFrom: 1 },
    { ...base, kind: 'file', parent: ['x'], name: fileTemporary('f'), madeFrom: -1 },
    { ...base, kind: 'upload', parent: ['x'], name: uploadStaging(), madeFrom: 0.5 },
    { ...base, kind: 'fork', parent: ['x'], name: forkStaging(), madeFrom: 0 },
  ];
  for (const [i, c] of cases.entries()) await writeFile(path.join(records.dir, `case${i}.json`), JSON.stringify(c));
  await writeFile(path.join(records.dir, 'ok.json'), JSON.stringify({ ...base, kind: 'file', parent: ['x', 'y'], name: fileTemporary('f'), madeFrom: 1 }));
  for (let i = 0; i < cases.length; i++) t.match(await records.read(`case${i}.json`), { unreadable: 'not the shape of a record' }, JSON.stringify(cases[i]));
  t.match(await records.read('ok.json'), { kind: 'file', madeFrom: 1 });
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

/** The box's workspace directory `w` with an agent's working directory `a` holding `a/work.txt`, and a restore of `a` recorded as begun. */
async function restoreBegun(t: { teardown(fn: () => Promise<void>): void }) {
  const { workspaceDir, records } = await setUp(t);
  await writeFile(path.join(workspaceDir, 'a', 'work.txt'), 'the agent’s work');
  const root = await openWorkspace(workspaceDir, '', records);
  const staging = restoreStaging();
  root.temporaries!.begin([], staging, 'restore', 'a');
  await root.close();
  const at = (name: string) => path.join(workspaceDir, name);
  return { workspaceDir, records, staging, aside: replacedAside(staging), at };
}

t.test('a restore killed while it built: the build goes, the working directory stays', async (t) => {
  const { workspaceDir, records, staging, at } = await restoreBegun(t);
  await mkdir(path.join(at(staging), 'half'), { recursive: true, mode: 0o500 });
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, silent), { removed: 1, gone: 0, left: 0 });
  t.same((await readdir(workspaceDir)).sort(), ['a']);
  t.equal(await readFile(path.join(at('a'), 'work.txt'), 'utf8'), 'the agent’s work');
});

t.test('a restore killed between its two renames: the working directory is put back, unrestored, and the build goes', async (t) => {
  const { workspaceDir, records, staging, aside, at } = await restoreBegun(t);
  await mkdir(at(staging));
  await writeFile(path.join(at(staging), 'restored.txt'), 'the snapshot’s');
  await rename(at('a'), at(aside));
  const logs: Array<Record<string, unknown>> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) });
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, logger), { removed: 1, gone: 0, left: 0 });
  t.same((await readdir(workspaceDir)).sort(), ['a']);
  t.equal(await readFile(path.join(at('a'), 'work.txt'), 'utf8'), 'the agent’s work', 'the working directory is back, whole');
  t.match(logs, [{ event: 'WorkspaceTemporarySwept', kind: 'restore', putBack: 'a', level: 40 }], 'said as a warning');
});

t.test('a restore killed after its swap: the replaced directory goes, the restored one stays', async (t) => {
  const { workspaceDir, records, aside, at } = await restoreBegun(t);
  await rename(at('a'), at(aside));
  await mkdir(at('a'));
  await writeFile(path.join(at('a'), 'restored.txt'), 'the snapshot’s');
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, silent), { removed: 1, gone: 0, left: 0 });
  t.same((await readdir(workspaceDir)).sort(), ['a']);
  t.same(await readdir(at('a')), ['restored.txt']);
});

t.test('a link in the place of a restore’s aside is left, and nothing is put back through it', async (t) => {
  const { workspaceDir, records, aside, at } = await restoreBegun(t);
  const elsewhere = await mkdtemp(path.join(tmpdir(), 'agentbox-elsewhere-'));
  t.teardown(() => rm(elsewhere, { recursive: true, force: true }));
  await writeFile(path.join(elsewhere, 'precious.txt'), 'not the box’s');
  await rm(at('a'), { recursive: true });
  await symlink(elsewhere, at(aside));
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, silent), { removed: 0, gone: 0, left: 1 });
  t.same((await readdir(workspaceDir)).sort(), [aside], 'the link stays, no working directory is made of it');
  t.same(await readdir(elsewhere), ['precious.txt']);
});

t.test('a fork killed while it built: its build goes', async (t) => {
  const { workspaceDir, records } = await setUp(t);
  const root = await openWorkspace(workspaceDir, '', records);
  const staging = forkStaging();
  root.temporaries!.begin(['a'], staging, 'fork');
  await root.close();
  await mkdir(path.join(workspaceDir, 'a', staging, 'src'), { recursive: true });
  await writeFile(path.join(workspaceDir, 'a', staging, 'src', 'x'), 'x');
  t.same(await sweepTemporaries(records, await records.list(), workspaceDir, silent), { removed: 1, gone: 0, left: 0 });
  t.same((await readdir(path.join(workspaceDir, 'a'))).sort(), ['sub']);
});

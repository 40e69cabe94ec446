// Temporaries of writes a killed API left in an agent's workspace (a PUT's file, an upload's staging directory): removed at the next start, and nothing else, whatever the agent put in their place.
import t, { type Test } from 'tap';
import { lstat, mkdir, mkdtemp, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MAX_TREE_DEPTH } from '../../management-api/src/workspace-files/tree-depth.js';
import { temporaryRecordsDir } from '../../management-api/src/workspace-files/temporaries-plugin.js';
import { makeRoot, startTestServer, waitFor } from './support/harness.js';
import { launchBox, temporaryIn, tree } from './support/killable-box.js';
import { ustarHeader } from '../helpers/ustar.js';

const TOML = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const MB = 1024 * 1024;
const PUT_TEMPORARY = /^\.big\.bin\.[0-9a-f]{12}\.tmp$/;
const STAGING = /^\.abx-upload-[0-9a-f]{16}$/;

/** A ustar header of a file entry of `size` bytes (tests/helpers/ustar.ts, not the code under test). */
const fileHeader = (name: string, size: number): Buffer => ustarHeader(name, '0', size);

/** A directory outside the box's root holding a file, for links an agent points out of its workspace. */
async function outside(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agentbox-outside-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, 'precious.txt'), 'not the box’s\n');
  return dir;
}

t.test('a PUT and an upload killed midway: their temporaries are removed at the next start, nothing else', async (t) => {
  const root = await makeRoot();
  const box = await launchBox(t, root, TOML);
  const { id, dir } = await box.agent(
    'killed',
    // A name of the temporaries' form that no write made: the sweep goes by its records, never by names alone.
    'echo mine > mine.txt && mkdir up && echo theirs > up/keep.txt && echo decoy > .decoy.0123456789ab.tmp && touch ready && exec sleep 600',
  );
  box.slowWrite('PUT', `/v1/agents/${id}/files/notes/big.bin`, Buffer.alloc(64 * 1024, 1), MB);
  box.slowWrite('POST', `/v1/agents/${id}/files/up`, Buffer.concat([fileHeader('inner/data.bin', MB), Buffer.alloc(64 * 1024, 2)]), 512 + MB + 1024);
  const putTemporary = await temporaryIn(path.join(dir, 'notes'), PUT_TEMPORARY);
  const staging = await temporaryIn(path.join(dir, 'up'), STAGING);
  await waitFor('the upload wrote into its staging directory', () => lstat(path.join(dir, 'up', staging, 'inner', 'data.bin')).then(() => true), 10_000);
  await box.kill();

  const before = await tree(dir);
  t.ok(before[`notes/${putTemporary}`] && before[`up/${staging}`], 'the kill left both temporaries');
  t.equal((await readdir(temporaryRecordsDir(root.paths))).length, 2, 'each recorded under the box state');

  const next = await startTestServer({ toml: TOML, root });
  t.teardown(() => next.close());
  const report = await next.server.app.agentbox.workspaceTemporaries.swept;
  t.same(report, { removed: 2, gone: 0, left: 0 });
  t.ok(before['notes'], 'the PUT made its parent directory, notes/, for itself');
  const expected = Object.fromEntries(Object.entries(before).filter(([p]) => !p.includes(putTemporary) && !p.includes(staging) && p !== 'notes'));
  t.same(
    await tree(dir),
    expected,
    'the temporaries are gone with the directory the PUT made for itself, and nothing else changed (the decoy of their form stays, and up/, which the agent made)',
  );
  t.same(await readdir(temporaryRecordsDir(root.paths)), [], 'their records are gone');
  t.match(next.logs.events('WorkspaceTemporariesSwept'), [{ removed: 2, gone: 0, left: 0 }]);
});

t.test('what an agent put in a temporary’s place is never followed out of its workspace, and the box starts', async (t) => {
  const root = await makeRoot();
  const box = await launchBox(t, root, TOML);
  const { id, dir } = await box.agent('hostile', 'mkdir linked moved deep gone && touch ready && exec sleep 600');
  const upload = Buffer.concat([fileHeader('data.bin', MB), Buffer.alloc(4096, 3)]);
  const staged: Record<string, string> = {};
  for (const target of ['linked', 'moved', 'deep', 'gone']) box.slowWrite('POST', `/v1/agents/${id}/files/${target}`, upload, 512 + MB + 1024);
  for (const target of ['linked', 'moved', 'deep', 'gone']) staged[target] = await temporaryIn(path.join(dir, target), STAGING);
  await box.kill();

  // The staging directory replaced by a link to a directory outside the workspace.
  const linkedTo = await outside(t);
  await rm(path.join(dir, 'linked', staged['linked']!), { recursive: true });
  await symlink(linkedTo, path.join(dir, 'linked', staged['linked']!));
  // Its parent renamed, and a link in the parent's place to a directory outside holding a directory of the staging's name.
  const movedTo = await outside(t);
  await mkdir(path.join(movedTo, staged['moved']!));
  await writeFile(path.join(movedTo, staged['moved']!, 'precious.txt'), 'not the box’s either\n');
  await rename(path.join(dir, 'moved'), path.join(dir, 'moved-away'));
  await symlink(movedTo, path.join(dir, 'moved'));
  // Made deeper than any walk of the box goes, with a link out at the top.
  const deepTo = await outside(t);
  const deepStaging = path.join(dir, 'deep', staged['deep']!);
  await mkdir(path.join(deepStaging, ...Array.from({ length: MAX_TREE_DEPTH + 4 }, () => 'd')), { recursive: true });
  await symlink(deepTo, path.join(deepStaging, 'out'));
  // Gone, with the directory it was in.
  await rm(path.join(dir, 'gone'), { recursive: true });
  // A record cut short (a kill while it was written).
  await writeFile(path.join(temporaryRecordsDir(root.paths), 'ffffffffffffffff.json'), '{"kind":"upl');
  const outsideBefore = { linkedTo: await tree(linkedTo), movedTo: await tree(movedTo), deepTo: await tree(deepTo) };
  const movedAway = await tree(path.join(dir, 'moved-away'));

  const next = await startTestServer({ toml: TOML, root });
  t.teardown(() => next.close());
  t.equal((await next.api('/livez')).status, 200, 'the box started');
  const report = await next.server.app.agentbox.workspaceTemporaries.swept;
  t.same(report, { removed: 0, gone: 1, left: 3 }, 'the link, the link on the way and the deep tree are left; the removed one is gone');
  t.same({ linkedTo: await tree(linkedTo), movedTo: await tree(movedTo), deepTo: await tree(deepTo) }, outsideBefore, 'nothing outside the workspace changed');
  t.equal(await readlink(path.join(dir, 'linked', staged['linked']!)), linkedTo, 'the link in the temporary’s place is left');
  t.same(await tree(path.join(dir, 'moved-away')), movedAway, 'a renamed parent is not chased');
  t.same(await readdir(temporaryRecordsDir(root.paths)), [], 'every record is dropped');
  const left = next.logs.events('WorkspaceTemporarySwept').filter((e) => e['outcome'] === 'left');
  t.match(
    left.map((e) => e['path']).sort(),
    [`deep/${staged['deep']}`, `linked/${staged['linked']}`, `moved/${staged['moved']}`],
    'each one left is a warning',
  );
  t.match(next.logs.events('WorkspaceTemporaryRecordUnreadable'), [{ record: 'ffffffffffffffff.json' }], 'and the record cut short');
});

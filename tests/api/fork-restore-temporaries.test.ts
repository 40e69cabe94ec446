// A fork's and a restore's builds cut short by a killed API (its own process, held still mid-build, then SIGKILL): gone at the next start, the restored agent's working directory as it was, nothing else touched.
import t from 'tap';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { temporaryRecordsDir } from '../../management-api/src/workspace-files/temporaries-plugin.js';
import { makeRoot, startTestServer, waitFor } from './support/harness.js';
import { launchBox, tree } from './support/killable-box.js';

const TOML = '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n';
const FORK_BUILD = /^\.abx-fork-[0-9a-f]{12}$/;
const RESTORE_BUILD = /^\.abx-restore-[0-9a-f]{12}$/;
/** Enough files that a build takes a good part of a second: the box is held still while one is under way. */
const FILES = 3000;

/** Whether a name of `form` is in `dir`. */
const holds = async (dir: string, form: RegExp): Promise<boolean> => (await readdir(dir)).some((n) => form.test(n));

/**
 * Start `request` on `box` and hold the box still once a build of `form` shows in `dir`; when the
 * build was already done by then (a loaded machine), let the box go on and start another: what is
 * tested is what a kill leaves while a build is under way, so one must be caught under way.
 */
async function holdMidBuild(box: Box, what: string, dir: string, form: RegExp, request: () => void): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    request();
    await waitFor(`a ${what} build in ${dir}`, () => holds(dir, form), 20_000);
    await box.pause();
    if (await holds(dir, form)) return;
    box.resume();
    if (attempt === 5) throw new Error(`no ${what} build was caught under way in 5 attempts`);
  }
}

type Box = Awaited<ReturnType<typeof launchBox>>;

/** Wait until agent `id` of `box` has ended. */
const ended = (box: Box, id: string) =>
  waitFor(`agent ${id} ended`, async () => ((await box.call('GET', `/v1/agents/${id}`)).body['agent'] as { state: string }).state !== 'running');

t.test('a fork and a restore killed while they build: their builds are gone at the next start, the working directory as it was', async (t) => {
  const root = await makeRoot();
  const workspace = root.paths.workspaceDir;
  const first = await launchBox(t, root, TOML);
  // Distinct contents, so that no two files share a chunk and a build writes each.
  const src = await first.agent(
    'src',
    `mkdir -p tree && i=0; while [ $i -lt ${FILES} ]; do echo "file $i of the tree" > tree/f$i; i=$((i+1)); done; echo mine > mine.txt; touch ready`,
  );
  const made = await first.call('POST', `/v1/agents/${src.id}/snapshots`, {});
  t.equal(made.status, 201, 'snapshotted');
  const sid = (made.body['snapshot'] as { id: string }).id;
  await holdMidBuild(first, 'fork', workspace, FORK_BUILD, () => first.send('POST', '/v1/agents', { name: 'forked', command: '/bin/true', fromSnapshot: sid }));
  await first.kill();
  t.ok(await holds(workspace, FORK_BUILD), 'the kill left a fork build');

  // Agents do not outlive their API: the agent of the same name works in the same directory.
  const second = await launchBox(t, root, TOML);
  t.match(await second.logged('WorkspaceTemporariesSwept'), { removed: 1, gone: 0, left: 0 }, 'its start removed the fork build');
  const again = await second.agent('src', 'touch ready');
  await ended(second, again.id);
  // The agent's own work since the snapshot: a restore cut short must not lose it.
  await writeFile(path.join(again.dir, 'after.txt'), 'written after the snapshot\n');
  const before = await tree(again.dir);
  await holdMidBuild(second, 'restore', workspace, RESTORE_BUILD, () => second.send('POST', `/v1/agents/${again.id}/restore`, { snapshot: sid }));
  await second.kill();
  t.notOk(await holds(workspace, FORK_BUILD), 'the fork build was gone at the start after its kill');
  t.ok(await holds(workspace, RESTORE_BUILD), 'the kill left a restore build');
  t.equal((await readdir(temporaryRecordsDir(root.paths))).length, 1, 'recorded under the box state');

  const next = await startTestServer({ toml: TOML, root });
  t.teardown(() => next.close());
  t.same(await next.server.app.agentbox.workspaceTemporaries.swept, { removed: 1, gone: 0, left: 0 }, 'the restore build removed');
  t.notOk(await holds(workspace, /^\.abx-/), 'nothing of the box’s is left in the workspace');
  t.same(await tree(again.dir), before, 'the working directory the restore was for is as it was');
  t.same(await readdir(temporaryRecordsDir(root.paths)), [], 'every record is dropped');
});

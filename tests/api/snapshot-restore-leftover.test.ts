// A restore whose replaced directory cannot be removed whole (here an immutable file, as root sets one; on a box that is not root, another owner's directory) still answers as done: the workspace is restored, and what is left is logged by name.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from './support/harness.js';

/** chattr +i needs root and a filesystem that keeps the flag (ext4, btrfs, xfs; not tmpfs). */
const chattr = (flag: string, file: string) => spawnSync('chattr', [flag, file]).status === 0;
/** Tried where the test's box keeps its workspace (the system's temporary directory). */
function immutableFlagWorks(): boolean {
  const dir = mkdtempSync(path.join(tmpdir(), 'agentbox-chattr-'));
  const file = path.join(dir, 'probe');
  writeFileSync(file, '');
  const works = chattr('+i', file) && chattr('-i', file);
  rmSync(dir, { recursive: true, force: true });
  return works;
}
const skip = immutableFlagWorks() ? false : 'chattr +i is not available here (not root, or a filesystem without the flag)';

let box: TestServer;
t.before(async () => {
  box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n' });
});
t.teardown(() => box?.close());

t.test('the restore stands when the old tree cannot be removed whole: 200, the snapshot in place, the rest named in the log', { skip }, async (t) => {
  const spawned = await box.api('/v1/agents', { body: { name: 'stuck', command: '/bin/sh', args: ['-c', 'exec sleep 600'] } });
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  const dir = path.join(box.paths.workspaceDir, agent.cwd);
  await writeFile(path.join(dir, 'state.txt'), 'good\n');
  const snap = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  const sid = (snap.json['snapshot'] as { id: string }).id;
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
  await writeFile(path.join(dir, 'state.txt'), 'bad\n');
  const pinned = path.join(dir, 'pinned');
  await writeFile(pinned, 'cannot be removed\n');
  t.ok(chattr('+i', pinned), 'pinned');
  let aside: string | undefined;
  t.teardown(() => {
    if (aside) chattr('-i', path.join(box.paths.workspaceDir, aside, 'pinned'));
  });
  const res = await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: sid } });
  aside = (await readdir(box.paths.workspaceDir)).find((n) => n.startsWith('.abx-replaced-'));
  t.equal(res.status, 200, JSON.stringify(res.json));
  t.equal(await readFile(path.join(dir, 'state.txt'), 'utf8'), 'good\n', 'the snapshot is in place');
  t.ok(aside, 'what could not be removed is left aside');
  t.match(box.logs.events('SnapshotRestoreLeftOver'), [{ agent: agent.id, dir: aside }], 'and named in the log');
});

// A box run by a user other than root, as in its container, for what root's rights would hide: an agent leaves files and directories closed to their owner (chmod 000, 0200, 0100, 0600, 0555), snapshots them, restores the snapshot in place twice and forks it for an agent that fails to start. Prints one JSON line of what the box answered and left in the workspace.
import { execFileSync } from 'node:child_process';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { startTestServer, waitFor } from './harness.js';

const box = await startTestServer({ toml: '[adapters]\nbeads = "off"\npods = "off"\nmemory = "off"\nevents = "off"\norchestrator = "local-procmgr"\n' });
/** The workspace's names, less the box's own passing write checks (`.agentbox-write-probe-<pid>`, made and removed at once). */
const workspace = async (): Promise<string[]> => (await readdir(box.paths.workspaceDir)).filter((n) => !n.startsWith('.agentbox-write-probe-')).sort();
try {
  // Go's module cache is read-only (0555) all the way down; a 000 directory is one nobody enters.
  const script = [
    'mkdir -p cache/mod/pkg locked xo rw && echo x > cache/mod/pkg/f && echo y > locked/f && echo g > xo/g && echo h > rw/h && echo s > secret && echo w > wo',
    'chmod 555 cache/mod/pkg cache/mod cache && chmod 000 locked secret && chmod 100 xo && chmod 600 rw && chmod 200 wo && touch done && exec sleep 600',
  ].join(' && ');
  const spawned = await box.api('/v1/agents', { body: { name: 'sealed', command: '/bin/sh', args: ['-c', script] } });
  const agent = spawned.json['agent'] as { id: string; cwd: string };
  await waitFor('the agent sealed its directories', async () => (await readdir(path.join(box.paths.workspaceDir, agent.cwd))).includes('done'));
  const snapshot = await box.api(`/v1/agents/${agent.id}/snapshots`, { body: {} });
  if (snapshot.status !== 201)
    throw new Error(
      `snapshot: ${snapshot.status} ${JSON.stringify(snapshot.json)}: ${box.logs
        .text()
        .split('\n')
        .filter((l) => l.includes('"level":50'))
        .join(' ')
        .slice(0, 2000)}`,
    );
  const sid = (snapshot.json['snapshot'] as { id: string }).id;
  const stats = (snapshot.json['snapshot'] as { stats: Record<string, number> }).stats;
  // What the snapshot holds of each closed entry, read from the store; and the modes the agent left, after the capture.
  const read: Record<string, string> = {};
  for (const file of ['locked/f', 'secret', 'wo', 'xo/g', 'rw/h']) {
    const res = await fetch(`${box.server.apiUrl}/v1/snapshots/${sid}/files/${file}`, { headers: { authorization: `Bearer ${box.key}` } });
    read[file] = `${res.status} ${res.headers.get('x-file-mode')} ${(await res.text()).trim()}`;
  }
  const modes: Record<string, string> = {};
  for (const name of ['locked', 'secret', 'wo', 'xo', 'rw'])
    modes[name] = ((await lstat(path.join(box.paths.workspaceDir, agent.cwd, name))).mode & 0o7777).toString(8);
  await box.api(`/v1/agents/${agent.id}?graceMs=0`, { method: 'DELETE' });
  const restores: unknown[] = [];
  // The second replaces the tree the first built: the snapshot's read-only directories built back.
  for (let i = 0; i < 2; i++) {
    const res = await box.api(`/v1/agents/${agent.id}/restore`, { body: { snapshot: sid } });
    restores.push({ status: res.status, json: res.json, workspace: await workspace() });
  }
  const fork = await box.api('/v1/agents', { body: { name: 'sealedfork', command: '/nonexistent/agent', fromSnapshot: sid } });
  const afterFork = await workspace();
  console.log(
    JSON.stringify({
      uid: process.getuid?.(),
      snapshot: snapshot.status,
      stats,
      read,
      modes,
      restores,
      fork: { status: fork.status, json: fork.json },
      afterFork,
    }),
  );
} finally {
  // The test root is removed with fs.rm, which stops at a directory it may not write.
  execFileSync('chmod', ['-R', 'u+rwX', box.paths.workspaceDir]);
  await box.close();
}
